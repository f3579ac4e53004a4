import type { StepSpec, Topology } from '../../agents/agent-spec.js';
import type { ChatMessage, ToolCall } from '../../providers/chat.types.js';
import type { JsonValue } from '../../platform/state/state-store.js';

/**
 * A step's life: `pending` → `running` → `completed` | `failed`; a step that needs a human
 * waits as `awaiting_approval` first (then back to `pending` once approved, or `denied`);
 * a step whose dependency failed or was denied is `skipped`.
 */
export type StepStatus =
  'pending' | 'running' | 'awaiting_approval' | 'completed' | 'failed' | 'skipped' | 'denied';

export interface StepState {
  id: string;
  kind: StepSpec['kind'];
  status: StepStatus;
  /** The last output: a tool's result, or an agent step's final text. */
  output?: JsonValue;
  error?: string;
  /** Set on steps with `require_approval`. */
  approval?: 'pending' | 'approved' | 'denied';
  /** Times the step started: a supervisor may call a worker again; a takeover re-runs a step
   * that was running when its owner died. */
  runs: number;
  started_at?: string;
  ended_at?: string;
}

/** A node waiting for a human decision; `call` is the supervisor's pending worker call. */
export interface PendingApproval {
  node_id: string;
  requested_at: string;
  call?: ToolCall;
}

export interface ApprovalDecision {
  node_id: string;
  decision: 'approved' | 'denied';
  /** The key id of the person who decided. */
  by: string | null;
  at: string;
  comment?: string;
  call_id?: string;
}

/** The supervisor's own conversation and budget, checkpointed with the steps. */
export interface SupervisorState {
  budget: number;
  /** Worker calls started so far; never more than `budget`. */
  used: number;
  turns: number;
  messages: ChatMessage[];
  /** Worker calls the model asked for that have not been answered yet, in order. */
  queue: ToolCall[];
  /** The call in `queue[0]` whose execution already counted against the budget. */
  started_call?: string;
}

/** A graph run's state, checkpointed in its run record after every step (issue 5). */
export interface GraphRunState {
  topology: Topology;
  /** The version of the agent specification the run started with; `steps` come from it. */
  agent_version: number;
  /** The run's input text, for `{{input}}`. */
  input: string;
  model?: string;
  max_turns: number;
  /** The specification's steps as they were when the run started. */
  definition: StepSpec[];
  steps: StepState[];
  pending: PendingApproval[];
  decisions: ApprovalDecision[];
  supervisor?: SupervisorState;
  /** How many times another process took the run over after its owner stopped renewing. */
  takeovers: number;
  /** Format 1 kept the run's first span here; it is the stored run's `span_id` now. */
  span_id?: string;
}
