import {
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { BoundedArray } from '../../platform/http/dto/bounded-array.js';
import { TenantId } from '../../platform/http/dto/identifier.js';
import { IfPresent } from '../../platform/http/dto/if-present.js';
import { NestedArray } from '../../platform/http/dto/nested.js';
import { RawJson } from '../../platform/http/dto/raw-json.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import { NAME_PATTERN, TOOL_NAME_PATTERN } from '../../tools/tool.limits.js';
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
  @IfPresent()
  @Matches(TOOL_NAME_PATTERN, { message: '$property must be 1 to 128 letters, digits, _ . or -' })
  tool?: string;
  /** The toolset of `tool` (kind tool) or the tools the LLM loop may use (kind agent). */
  @IfPresent() @Matches(NAME, NAME_MESSAGE) toolset?: string;
  /** kind `tool`: the arguments; strings may reference `{{input}}` and `{{steps.<id>.output}}`. */
  @IfPresent() @IsObject() @RawJson() arguments?: { [key: string]: JsonValue };
  /** kind `agent`: the prompt of its own LLM loop (same references allowed). */
  @IfPresent() @IsString() @MaxLength(20_000) prompt?: string;
  /** What a supervisor's model is told about this worker. */
  @IfPresent() @IsString() @MaxLength(1024) description?: string;
  @IfPresent() @BoundedArray(MAX_STEPS) @IsString({ each: true }) depends_on?: string[];
  @IfPresent() @IsBoolean() require_approval?: boolean;
}

/** PUT /v1/agents/{name}. */
export class PutAgentDto implements AgentSpec {
  @TenantId() tenant_id!: string;
  @IsIn(TOPOLOGIES) topology!: Topology;
  @IfPresent() @IsString() @MaxLength(1024) description?: string;
  @NestedArray(() => StepDto, { min: 1, max: MAX_STEPS }) steps!: StepDto[];
  /** Supervisor: the most steps its engine may run. */
  @IfPresent() @IsInt() @Min(1) @Max(1000) budget?: number;
}
