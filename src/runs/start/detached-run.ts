import type { Logger } from '@nestjs/common';
import type { AgentRunner } from '../agent-runner.service.js';
import type { RunRecord } from '../record/run-record.js';
import type { RunRequest } from '../run-request.js';

/** A run that goes on without its caller: what it was when recorded, and its end. */
export interface DetachedRun {
  /** The run as recorded (executing here), or as it ended when it ended before that. */
  record: RunRecord;
  /** True when `record` is already settled (a repeated run id, or a run that ended at once). */
  ended: boolean;
}

/**
 * Starts `request` through the runner and answers once the run is recorded and executing here
 * (before its first model call), leaving it to go on without the caller: background and
 * streamed runs. Until then it fails as a plain run would (400, 404, 409 `run-in-progress`...),
 * so those callers get the same problems. Afterwards the run records its own outcome; one that
 * stops here unfinished goes on elsewhere from its checkpoint, so nothing is lost by only logging.
 */
export function startDetached(
  runner: AgentRunner,
  request: RunRequest,
  logger: Logger,
): Promise<DetachedRun> {
  return new Promise<DetachedRun>((resolve, reject) => {
    let recorded = false;
    const run = runner.run({
      ...request,
      onRecorded: (record) => {
        recorded = true;
        request.onRecorded?.(record);
        resolve({ record, ended: false });
      },
    });
    run.then(
      (record) => {
        if (!recorded) resolve({ record, ended: true });
      },
      (error: unknown) => {
        if (!recorded) reject(error instanceof Error ? error : new Error(String(error)));
        else logger.debug(`detached run ${request.runId ?? ''} stopped here: ${String(error)}`);
      },
    );
  });
}
