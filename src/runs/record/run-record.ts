import type { ChatMessage } from '../../providers/chat.types.js';
import type { RunUsage } from '../../providers/usage.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import type { GraphRunState } from '../graph/graph-run-state.js';

export type RunStatus =
  'queued' | 'running' | 'completed' | 'failed' | 'paused' | 'denied' | 'cancelled';
export type RunFinishReason = 'stop' | 'max_turns' | 'length' | 'error';

/** Why a failed run failed, as the problem the caller received. */
export interface RunError {
  status: number;
  type: string;
  detail: string;
}

/**
 * A run as POST /v1/agent/run and GET /v1/runs/{id} answer it (CONTRACT section 5): the API
 * shape, made from the stored run by `runView`. `messages` are the messages this run added to
 * its session.
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
  /**
   * Tokens the run's model calls used, as the provider reported them (estimated for the echo
   * provider); absent while no call has reported any.
   */
  usage?: RunUsage;
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

/** The model's answer of a turn whose tool calls were still running, with the results so far. */
export interface InFlightTurn {
  /** 1 for a run's first turn. */
  number: number;
  answer: ChatMessage;
  results: ChatMessage[];
}

/**
 * What a plain run needs to go on from where it stood, on any replica: the request's choices,
 * the session it continues, and the turn in flight. Completed turns are in the session itself
 * (marked with the run, see SessionRunMark), so they are written once.
 */
export interface PlainCheckpoint {
  toolset: string;
  model?: string;
  max_turns: number;
  /** The caller named the session (it existed, or is to be created under that id). */
  continues_session: boolean;
  /** The session's version when the run started: until the run writes it, it must still be. */
  session_version: number;
  /** The turn whose tool calls were running, when there is one. */
  turn: InFlightTurn | null;
}

/** The stored format this version writes; older records are read by `readStoredRun`. */
export const RUN_FORMAT = 2;

/**
 * A run as the state backend keeps it: the API's fields, the format version, and what its
 * execution needs to go on after a takeover (`loop` for plain runs; a graph's `graph` state is
 * also part of the API shape).
 */
export interface StoredRun extends RunRecord {
  format: number;
  /** Plain runs still executing. */
  loop?: PlainCheckpoint;
  /** The key id that started the run, for the audit trail of whoever continues it. */
  actor?: string;
  /** The span of the run's first execution, which later executions link to. */
  span_id?: string;
  /** The run streams the model's answer into its event log (a streamed or background run). */
  deltas?: boolean;
  /**
   * The run is a task of another wire, which keeps its own record of it: `a2a` (started by an
   * A2A SendMessage) has a row in the A2A task index that follows its status, and may be given
   * a push configuration (its webhook) while it runs; `messaging` (the reply to a chat message)
   * stores its reply on its outbox entry as it settles. Runs without it touch neither.
   */
  origin?: RunOrigin;
  /** The run was started with a webhook: its settling marks the webhook due. */
  webhook?: true;
}

/** See StoredRun.origin. */
export type RunOrigin = 'a2a' | 'messaging';

/** What a run carries from its start to every replica that continues it (see StoredRun). */
export type RunMarks = Pick<StoredRun, 'origin' | 'webhook'>;

/** The marks of a run to record, from its origin and whether it has a webhook. */
export function runMarks(origin: RunOrigin | undefined, webhook: boolean): RunMarks {
  return { ...(origin !== undefined ? { origin } : {}), ...(webhook ? { webhook: true } : {}) };
}

/**
 * Whether the run may have a webhook to deliver when it settles: it was started with one, or
 * it is an A2A task (whose push configuration can be set at any time).
 */
export function mayHaveWebhook(run: RunMarks): boolean {
  return run.webhook === true || run.origin === 'a2a';
}

export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set([
  'completed',
  'failed',
  'denied',
  'cancelled',
]);

/** A run in one of these states is not running: a repeated run id returns it as it is. */
export const SETTLED_STATUSES: ReadonlySet<RunStatus> = new Set([...TERMINAL_STATUSES, 'paused']);

/** A run in one of these states has work left that its lease holder (or a taker-over) does. */
export const ACTIVE_STATUSES: ReadonlySet<RunStatus> = new Set(['queued', 'running']);
