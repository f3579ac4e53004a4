import type { ChatMessage } from '../../providers/chat.types.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import type { GraphRunState } from '../graph/graph-run-state.js';

export type RunStatus = 'running' | 'completed' | 'failed' | 'paused' | 'denied';
export type RunFinishReason = 'stop' | 'max_turns' | 'length' | 'error';

/** Why a failed run failed, as the problem the caller received. */
export interface RunError {
  status: number;
  type: string;
  detail: string;
}

/**
 * A run as stored in the state backend and returned by POST /v1/agent/run and GET /v1/runs/{id}
 * (CONTRACT section 5). `messages` are the messages this run added to its session.
 */
export interface RunRecord {
  run_id: string;
  session_id: string;
  tenant_id: string;
  agent: string;
  status: RunStatus;
  text: string;
  finish_reason: RunFinishReason | null;
  turns: number;
  tool_calls: number;
  messages: ChatMessage[];
  trace_id: string | null;
  metadata?: { [key: string]: JsonValue };
  error?: RunError;
  started_at: string;
  ended_at: string | null;
  /** Graph runs: persisted `true` while a node waits for approval (spec section 3). */
  paused?: boolean;
  /** Graph runs: the node waiting for a decision while paused. */
  pending_node?: string | null;
  /** Graph runs: every step's state. */
  graph?: GraphRunState;
}

export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'denied']);

/** A run in one of these states is not running: a repeated run id returns it as it is. */
export const SETTLED_STATUSES: ReadonlySet<RunStatus> = new Set([...TERMINAL_STATUSES, 'paused']);
