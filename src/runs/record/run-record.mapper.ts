import type { JsonValue } from '../../platform/state/state-store.js';
import { RUN_FORMAT, type RunRecord, type StoredRun } from './run-record.js';

/**
 * A stored run, whatever format it was written in. Format 1 (before issue 13: no `format`
 * field) holds the same fields as today's API shape and no plain-run checkpoint, so it reads as
 * format 2 as it is; a paused graph run written then goes on after the upgrade.
 */
export function readStoredRun(value: JsonValue): StoredRun {
  const stored = value as unknown as Partial<StoredRun>;
  const format = typeof stored.format === 'number' ? stored.format : 1;
  if (format > RUN_FORMAT) {
    // Written by a newer version during a rolling upgrade: readable fields are the API's.
    return { ...(stored as StoredRun), format };
  }
  const run = { ...(stored as StoredRun), format: RUN_FORMAT };
  // Format 1 kept a graph run's first span in its graph state.
  if (run.span_id === undefined && run.graph?.span_id !== undefined)
    run.span_id = run.graph.span_id;
  return run;
}

/** What the API shows of a stored run: everything but the format and the execution state. */
export function runView(stored: StoredRun): RunRecord {
  const { format, loop, actor, span_id, deltas, origin, webhook, ...view } = stored;
  return view;
}
