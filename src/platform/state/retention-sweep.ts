import type { Logger } from '@nestjs/common';
import type { ServingSignal } from '../http/serving-signal.js';
import { OutageLog } from '../logging/outage-log.js';

/** How often a serving replica deletes what is past its retention. */
const SWEEP_EVERY_MS = 10 * 60_000;

export interface RetentionSweepOptions {
  logger: Logger;
  /** What goes, plural ("audit events"): named in the log lines. */
  what: string;
  /** One sweep at `now`; answers how many went. May throw: the sweep logs it as an outage. */
  sweep(now: number): Promise<number>;
  /** Also sweep as soon as the server listens, not only after the first period. */
  atStart?: boolean;
}

/**
 * The deletion of what is past its retention, run every ten minutes by every serving replica.
 * Replicas need no lease for it: deleting what another already deleted deletes nothing. It
 * starts once the server listens (a process that never serves never sweeps), never throws, and
 * logs a failing sweep once per outage (OutageLog) and each sweep that deleted something.
 */
export class RetentionSweep {
  private readonly outage: OutageLog;
  private timer?: NodeJS.Timeout;
  /** The sweep running or last run. */
  private last: Promise<number> = Promise.resolve(0);

  constructor(private readonly options: RetentionSweepOptions) {
    this.outage = new OutageLog(options.logger, `pruning ${options.what}`);
  }

  start(serving: ServingSignal): void {
    serving.whenServing(() => {
      if (this.options.atStart) void this.run();
      this.timer = setInterval(() => void this.run(), SWEEP_EVERY_MS);
      this.timer.unref();
    });
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * One sweep; answers how many went (0 when it failed). One at a time in a process: a sweep
   * asked for while another runs (the one at start, the timer's) goes after it.
   */
  run(now = Date.now()): Promise<number> {
    const next = this.last.then(() => this.sweepOnce(now));
    this.last = next;
    return next;
  }

  private async sweepOnce(now: number): Promise<number> {
    let removed = 0;
    try {
      removed = await this.options.sweep(now);
      this.outage.succeeded();
    } catch (error) {
      this.outage.failed(error);
    }
    if (removed > 0) {
      this.options.logger.log(`deleted ${removed} ${this.options.what} past their retention`);
    }
    return removed;
  }
}

/**
 * Deletes in bounded statements: `deleteBatch(limit)` until one deletes fewer than `batch` or
 * `rounds` ran; answers how many went. Keeps each statement short on a large backlog.
 */
export async function pruneInBatches(
  deleteBatch: (limit: number) => Promise<number>,
  batch: number,
  rounds: number,
): Promise<number> {
  let removed = 0;
  for (let round = 0; round < rounds; round++) {
    const deleted = await deleteBatch(batch);
    removed += deleted;
    if (deleted < batch) break;
  }
  return removed;
}
