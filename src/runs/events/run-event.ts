import type { JsonValue } from '../../platform/state/state-store.js';

/**
 * What a run's event log holds, in order (README, "Run events"):
 * - `run.queued` (waiting for its session, busy with another run), `run.started`, `run.taken_over` (another replica continues it), `run.resumed` (after a
 *   decision): `{run}` as GET /v1/runs/{id} answers it at that moment;
 * - `model.delta`: a piece of the model's answer as it is generated, `{turn, text}` or
 *   `{turn, tool_call: {index, id?, name?, arguments?}}` (streamed and background runs);
 * - `tool.started` `{turn, call_id, name, arguments}` and `tool.finished` `{turn, call_id, name,
 *   duration_ms, is_error, result}` (the result as the model was fed it);
 * - `run.progressed` `{turns, tool_calls}` after each turn or step;
 * - `step.started` `{step, kind, attempt}` and `step.finished` `{step, status, error?}` (graphs);
 * - `approval.requested` `{node}` and `approval.decided` `{node, decision, by, comment?}`;
 * - `run.cancel_requested` `{by}`;
 * - `run.paused` `{run}` (waiting for a decision) and `run.settled` `{run}`: the last event.
 * Events inside a graph step carry `step` too.
 */
export const RUN_EVENT_TYPES = [
  'run.queued',
  'run.started',
  'run.taken_over',
  'run.resumed',
  'model.delta',
  'tool.started',
  'tool.finished',
  'run.progressed',
  'step.started',
  'step.finished',
  'approval.requested',
  'approval.decided',
  'run.cancel_requested',
  'run.paused',
  'run.settled',
] as const;

export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

export type RunEventData = { [key: string]: JsonValue };

/** One event of a run's log; `id` counts from 1 per run and is the SSE event id. */
export interface RunEvent {
  id: number;
  type: RunEventType;
  /** ISO time the event happened. */
  at: string;
  data: RunEventData;
}

/** An event not yet written: numbered when it is. */
export interface NewRunEvent {
  type: RunEventType;
  /** Epoch milliseconds. */
  at: number;
  data: RunEventData;
}

/** The event after which a run's log has nothing more: a stream of it ends. */
export const LAST_EVENT: RunEventType = 'run.settled';
