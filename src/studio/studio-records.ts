import type { RunStatus } from '../runs/record/run-record.js';

/**
 * A session as the studio shows it (spec section 2): the latest run of the session that ended
 * here. `prompt` is that run's last user input, `text` its answer; `run_id`, `runs` and
 * `updated_at` are ours.
 */
export interface StudioSession {
  id: string;
  type: 'session';
  tenant_id: string;
  agent: string;
  prompt: string;
  text: string;
  finish_reason: string;
  tool_calls: number;
  turns: number;
  /** The run this record describes (the session's latest). */
  run_id: string;
  /** Runs of this session that ended on this replica while it was recorded. */
  runs: number;
  updated_at: string;
}

/**
 * One run's loop on this replica (CONTRACT section 8). `pending_node` (the node a paused graph
 * run waits on) and `error` (why a failed run failed) are ours.
 */
export interface StudioLoop {
  id: string;
  type: 'loop';
  tenant_id: string;
  agent: string;
  session_id: string;
  run_id: string;
  status: RunStatus;
  started_at: string;
  ended_at: string | null;
  turns: number;
  tool_calls: number;
  finish_reason: string | null;
  trace_id: string | null;
  pending_node: string | null;
  error: string | null;
}

/** Totals over every record held for the selection, whatever `limit` cut from the lists. */
export interface StudioCounts {
  sessions: number;
  loops: number;
  running_loops: number;
  paused_loops: number;
  completed_loops: number;
  failed_loops: number;
  denied_loops: number;
}

/** GET /v1/studio (spec section 2): newest first. */
export interface StudioSnapshot {
  sessions: StudioSession[];
  loops: StudioLoop[];
  counts: StudioCounts;
}
