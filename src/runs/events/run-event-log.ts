import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig, RunEventsConfig } from '../../platform/config/gateway-config.js';
import { ServingSignal } from '../../platform/http/serving-signal.js';
import { RetentionSweep } from '../../platform/state/retention-sweep.js';
import type { StateNotice } from '../../platform/state/state-notifications.js';
import type { NewRunEvent } from './run-event.js';
import { RunEventFeed } from './run-event-feed.js';
import { RunEventStore } from './run-event.store.js';
import { RunJournal } from './run-journal.js';

/** How many runs' logs one sweep deletes at most. */
const PRUNE_RUNS = 500;

/**
 * What a batch of a run's events announces besides itself (a notice to other replicas), sent by
 * the statement that writes the batch; null: nothing.
 */
export type RunEventAnnouncer = (
  tenantId: string,
  runId: string,
  events: readonly NewRunEvent[],
) => StateNotice | null;

/**
 * The run event log of this process: a journal for each execution of a run (RunLifecycle opens
 * one), whose writes reach this replica's subscribers at once and other replicas' through the
 * store's notification; and the retention of the logs (SVC_RUN_EVENTS_RETENTION_MS), pruned by
 * every serving replica.
 */
@Injectable()
export class RunEventLog implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunEventLog.name);
  private readonly config: RunEventsConfig;
  private readonly sweeper: RetentionSweep;
  private readonly announcers = new Set<RunEventAnnouncer>();

  constructor(
    private readonly store: RunEventStore,
    private readonly feed: RunEventFeed,
    private readonly serving: ServingSignal,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.config = config.get('runEvents', { infer: true });
    this.sweeper = new RetentionSweep({
      logger: this.logger,
      what: 'run events',
      sweep: () => this.store.prune(this.config.retentionMs, PRUNE_RUNS),
    });
  }

  /** The journal of one execution of a run; `deltas`: the run streams the model's answer. */
  open(tenantId: string, runId: string, deltas: boolean): RunJournal {
    return new RunJournal(
      tenantId,
      runId,
      async (events, onlyIf) => {
        const written = await this.store.append(
          tenantId,
          runId,
          events,
          this.noticesOf(tenantId, runId, events),
          onlyIf,
        );
        if (written.length > 0) this.feed.published(tenantId, runId, written);
        return written;
      },
      { maxEvents: this.config.maxPerRun, deltas, logger: this.logger },
    );
  }

  /**
   * Every batch of run events written from now on is offered to `announcer`, whose notice goes
   * out with the batch (in its statement on PostgreSQL). Returns the unsubscribe function.
   */
  announceWith(announcer: RunEventAnnouncer): () => void {
    this.announcers.add(announcer);
    return () => this.announcers.delete(announcer);
  }

  private noticesOf(tenantId: string, runId: string, events: NewRunEvent[]): StateNotice[] {
    const notices: StateNotice[] = [];
    for (const announcer of this.announcers) {
      try {
        const notice = announcer(tenantId, runId, events);
        if (notice) notices.push(notice);
      } catch (error) {
        this.logger.warn(`a run event announcer failed: ${String(error)}`);
      }
    }
    return notices;
  }

  onApplicationBootstrap(): void {
    this.sweeper.start(this.serving);
  }

  onApplicationShutdown(): void {
    this.sweeper.stop();
  }
}
