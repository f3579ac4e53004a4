import type { ChatMessage } from '../providers/chat.types.js';
import type { JsonValue } from '../state/state-store.js';

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
}

export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'denied']);
