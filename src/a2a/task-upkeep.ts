import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { ServingSignal } from '../platform/http/serving-signal.js';
import { RetentionSweep } from '../platform/state/retention-sweep.js';
import {
  RunEvents,
  type RunObserver,
  SubscribedRunObserver,
} from '../runs/lifecycle/run-events.js';
import type { WriteInFlight } from '../platform/state/state-store.js';
import type { RunMarks, RunRecord } from '../runs/record/run-record.js';
import { A2ATaskIndex } from './task-index.js';

/** How many index rows one sweep deletes at most. */
const PRUNE_ROWS = 1_000;

/**
 * Keeps the A2A task index in step with the runs: every A2A task (a run whose origin is `a2a`)
 * this process records queued, starts, resumes or settles writes its task's row (the settled
 * one in the settled record's transaction); any other run has no row and costs the index
 * nothing. Every serving replica deletes rows whose status is older than the run event log's
 * retention (SVC_RUN_EVENTS_RETENTION_MS), as the run's event log is. A write that fails is
 * logged and repaired when a listing next reads the task (ListTasks checks every task it
 * answers), and so is the row of a task recorded before runs carried their origin.
 */
@Injectable()
export class A2ATaskUpkeep
  extends SubscribedRunObserver
  implements RunObserver, OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger('A2ATasks');
  private readonly sweeper: RetentionSweep;

  constructor(
    private readonly index: A2ATaskIndex,
    events: RunEvents,
    private readonly serving: ServingSignal,
    config: ConfigService<GatewayConfig, true>,
  ) {
    super(events);
    const { retentionMs } = config.get('runEvents', { infer: true });
    this.sweeper = new RetentionSweep({
      logger: this.logger,
      what: 'A2A task index rows',
      sweep: () => this.index.prune(retentionMs, PRUNE_ROWS),
    });
  }

  onApplicationBootstrap(): void {
    this.sweeper.start(this.serving);
  }

  onApplicationShutdown(): void {
    this.sweeper.stop();
  }

  runQueued(record: Readonly<RunRecord>, marks: Readonly<RunMarks>): void {
    if (marks.origin === 'a2a') this.follow(record);
  }

  runStarted(record: Readonly<RunRecord>, marks: Readonly<RunMarks>): void {
    if (marks.origin === 'a2a') this.follow(record);
  }

  /** A settled task's row goes with its settled record, in its transaction. */
  runSettling(record: Readonly<RunRecord>, marks: Readonly<RunMarks>, onlyIf: WriteInFlight): void {
    if (marks.origin === 'a2a') this.follow(record, onlyIf);
  }

  /** Deletes what is past its retention; answers how many rows went. Never throws. */
  prune(): Promise<number> {
    return this.sweeper.run();
  }

  private follow(record: Readonly<RunRecord>, onlyIf?: WriteInFlight): void {
    this.index.upsert(record, onlyIf?.write).catch((err: unknown) => {
      this.logger.warn({ err, run_id: record.run_id }, 'updating an A2A task index row failed');
    });
  }
}
