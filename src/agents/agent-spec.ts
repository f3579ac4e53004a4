import type { JsonValue } from '../platform/state/state-store.js';

export const TOPOLOGIES = ['pipeline', 'parallel', 'supervisor'] as const;
export type Topology = (typeof TOPOLOGIES)[number];
export const STEP_KINDS = ['tool', 'agent'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** One node of an agent graph (spec section 2, "Agent specification"), as stored. */
export interface StepSpec {
  id: string;
  kind: StepKind;
  /** kind `tool`: the tool to call. */
  tool?: string;
  /** The toolset of `tool` (kind tool) or the tools the LLM loop may use (kind agent). */
  toolset?: string;
  /** kind `tool`: the arguments; strings may reference `{{input}}` and `{{steps.<id>.output}}`. */
  arguments?: { [key: string]: JsonValue };
  /** kind `agent`: the prompt of its own LLM loop (same references allowed). */
  prompt?: string;
  /** What a supervisor's model is told about this worker. */
  description?: string;
  depends_on?: string[];
  require_approval?: boolean;
}

/** A registered agent graph, without its tenant. */
export interface AgentSpec {
  topology: Topology;
  description?: string;
  steps: StepSpec[];
  /** Supervisor: the most steps its engine may run. */
  budget?: number;
}
