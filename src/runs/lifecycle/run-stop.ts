import { HttpException } from '@nestjs/common';
import { ProblemException, RetryLaterProblem } from '../../platform/http/problem.js';
import {
  LeaseLostError,
  StateConflictError,
  StateUnavailableError,
} from '../../platform/state/state-store.js';
import { STATE_RETRY_AFTER_S } from '../../platform/state/state-unavailable.js';
import { RunCancelled, ShuttingDown } from './run-lease.js';

/**
 * Why a run cannot go on in this process although it is not over, or null when `error` is the
 * run's own failure (to be recorded). A run that stops here keeps its last checkpoint and its
 * lease is handed over, so another replica (or this one, after a retry) continues it.
 */
export function stoppedReason(error: unknown, signal?: AbortSignal): string | null {
  const cause: unknown = signal?.aborted ? signal.reason : error;
  if (cause instanceof ShuttingDown) return 'this replica is shutting down';
  if (cause instanceof RunCancelled) return 'it was cancelled';
  if (cause instanceof LeaseLostError) return 'another replica took its lease over';
  // The run record moved on under this process: another one owns the run now.
  if (cause instanceof StateConflictError) return 'another replica wrote the run';
  if (cause instanceof StateUnavailableError) return 'the state backend is unavailable';
  if (signal?.aborted) return 'its execution here was stopped';
  return null;
}

/** What the caller of a run that stopped here is told: where the run goes on, and when to ask. */
export function stoppedProblem(error: unknown, runId: string, signal?: AbortSignal): HttpException {
  const cause: unknown = signal?.aborted ? signal.reason : error;
  const run = `run ${JSON.stringify(runId)}`;
  if (cause instanceof StateUnavailableError) {
    return new RetryLaterProblem(
      503,
      `the state backend is unavailable; ${run} goes on from its last checkpoint once it is back (repeat the request with its run_id for the outcome)`,
      'state-unavailable',
      STATE_RETRY_AFTER_S,
    );
  }
  if (cause instanceof ShuttingDown) {
    return new RetryLaterProblem(
      503,
      `this replica is shutting down; ${run} goes on from its last checkpoint on another (repeat the request with its run_id for the outcome)`,
      'shutting-down',
      2,
    );
  }
  return new ProblemException(
    409,
    `${run} goes on on another replica (${stoppedReason(error, signal) ?? 'it was stopped here'})`,
    'lease-lost',
  );
}
