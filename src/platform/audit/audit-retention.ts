import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AuditConfig, GatewayConfig } from '../config/gateway-config.js';
import { ServingSignal } from '../http/serving-signal.js';
import { RetentionSweep, pruneInBatches } from '../state/retention-sweep.js';
import { AuditEventStore } from './audit-event.store.js';

/** Events one DELETE removes, and DELETEs one sweep makes at most. */
const PRUNE_BATCH = 5_000;
const PRUNE_ROUNDS = 20;
const DAY_MS = 24 * 3_600_000;

/**
 * SVC_AUDIT_RETENTION_DAYS for the audit trail in the state backend: every serving replica
 * deletes events older than that (RetentionSweep), in bounded DELETEs.
 */
@Injectable()
export class AuditRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly config: AuditConfig;
  private readonly sweeper: RetentionSweep;

  constructor(
    private readonly store: AuditEventStore,
    private readonly serving: ServingSignal,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.config = config.get('audit', { infer: true });
    this.sweeper = new RetentionSweep({
      logger: new Logger('Audit'),
      what: 'audit events',
      atStart: true,
      sweep: (now) => {
        const cutoff = now - this.config.retentionDays * DAY_MS;
        return pruneInBatches(
          (limit) => this.store.prune(cutoff, limit),
          PRUNE_BATCH,
          PRUNE_ROUNDS,
        );
      },
    });
  }

  private get enabled(): boolean {
    return this.config.store === 'state' && this.config.retentionDays > 0;
  }

  onApplicationBootstrap(): void {
    if (this.enabled) this.sweeper.start(this.serving);
  }

  onApplicationShutdown(): void {
    this.sweeper.stop();
  }

  /** One sweep; answers how many events went. Never throws. */
  sweep(now = Date.now()): Promise<number> {
    return this.enabled ? this.sweeper.run(now) : Promise.resolve(0);
  }
}
