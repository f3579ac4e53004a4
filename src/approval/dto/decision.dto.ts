import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { MAX_TENANT_ID } from '../../state/state-key.limits.js';
import { NAME_PATTERN } from '../../tools/tool.limits.js';

/** POST /v1/runs/{run_id}/approve and /deny (CONTRACT section 5). */
export class DecisionDto {
  @IsString() @IsNotEmpty() @MaxLength(MAX_TENANT_ID) tenant_id!: string;
  /** The paused node (a step id of the graph). */
  @Matches(NAME_PATTERN, { message: 'node_id must be a step id of the graph' }) node_id!: string;
  @IsOptional() @IsString() @MaxLength(2000) comment?: string;
}
