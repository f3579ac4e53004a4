import { IsString, Matches, MaxLength } from 'class-validator';
import { TenantId } from '../../../platform/http/dto/identifier.js';
import { IfPresent } from '../../../platform/http/dto/if-present.js';
import { NAME_PATTERN } from '../../../tools/tool.limits.js';

/** POST /v1/runs/{run_id}/approve and /deny (CONTRACT section 5). */
export class DecisionDto {
  @TenantId() tenant_id!: string;
  /** The paused node (a step id of the graph). */
  @Matches(NAME_PATTERN, { message: 'node_id must be a step id of the graph' }) node_id!: string;
  @IfPresent() @IsString() @MaxLength(2000) comment?: string;
}
