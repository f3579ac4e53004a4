import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { RawJson } from '../../http/dto/raw-json.js';
import type { JsonValue } from '../../state/state-store.js';
import { MAX_TENANT_ID } from '../../state/state-key.limits.js';
import { NAME_PATTERN } from '../../tools/tool.limits.js';
import {
  type AgentSpec,
  STEP_KINDS,
  type StepKind,
  type StepSpec,
  TOPOLOGIES,
  type Topology,
} from '../agent-spec.js';

const NAME = NAME_PATTERN;
const NAME_MESSAGE = { message: '$property must be 1 to 64 letters, digits, _ . or -' };

export const MAX_STEPS = 100;

/** One node of an agent graph (spec section 2, "Agent specification"). */
export class StepDto implements StepSpec {
  @Matches(NAME, NAME_MESSAGE) id!: string;
  @IsIn(STEP_KINDS) kind!: StepKind;
  /** kind `tool`: the tool to call. */
  @IsOptional() @Matches(NAME, NAME_MESSAGE) tool?: string;
  /** The toolset of `tool` (kind tool) or the tools the LLM loop may use (kind agent). */
  @IsOptional() @Matches(NAME, NAME_MESSAGE) toolset?: string;
  /** kind `tool`: the arguments; strings may reference `{{input}}` and `{{steps.<id>.output}}`. */
  @IsOptional() @IsObject() @RawJson() arguments?: { [key: string]: JsonValue };
  /** kind `agent`: the prompt of its own LLM loop (same references allowed). */
  @IsOptional() @IsString() @MaxLength(20_000) prompt?: string;
  /** What a supervisor's model is told about this worker. */
  @IsOptional() @IsString() @MaxLength(1024) description?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(MAX_STEPS) @IsString({ each: true }) depends_on?: string[];
  @IsOptional() @IsBoolean() require_approval?: boolean;
}

/** PUT /v1/agents/{name}. */
export class PutAgentDto implements AgentSpec {
  @IsString() @IsNotEmpty() @MaxLength(MAX_TENANT_ID) tenant_id!: string;
  @IsIn(TOPOLOGIES) topology!: Topology;
  @IsOptional() @IsString() @MaxLength(1024) description?: string;
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_STEPS)
  @ValidateNested({ each: true })
  @Type(() => StepDto)
  steps!: StepDto[];
  /** Supervisor: the most steps its engine may run. */
  @IsOptional() @IsInt() @Min(1) @Max(1000) budget?: number;
}
