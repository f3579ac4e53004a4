import { classifyError } from '../../platform/http/classify-error.js';
import { problemType } from '../../platform/http/problem.js';
import { StateConflictError } from '../../platform/state/state-store.js';
import type { RunError } from './run-record.js';

/** The problem a failed run is recorded with (and replayed as when its run id is repeated). */
export function runError(error: unknown): RunError {
  // The only conflict a run's own writes can meet: its session or record moved on under it.
  if (error instanceof StateConflictError) {
    return { status: 409, type: problemType(409, 'session-conflict'), detail: error.message };
  }
  const known = classifyError(error) ?? { status: 500, detail: 'the run failed unexpectedly' };
  return {
    status: known.status,
    type: problemType(known.status, known.slug),
    detail: known.detail,
  };
}
