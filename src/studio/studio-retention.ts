import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig, StudioConfig } from '../platform/config/gateway-config.js';
import { ServingSignal } from '../platform/http/serving-signal.js';
import { RetentionSweep, pruneInBatches } from '../platform/state/retention-sweep.js';
import { StudioTables } from './studio-tables.js';
import { STUDIO_RECORDS_PER_TENANT } from './studio.store.js';

/** Rows one DELETE by age removes, and such DELETEs one sweep makes at most. */
const PRUNE_BATCH = 1_000;
const PRUNE_ROUNDS = 20;
/** Tenants over their count whose oldest records one sweep removes. */
const CROWDED_TENANTS = 100;
const DAY_MS = 24 * 3_600_000;

/**
 * Keeps the studio tables bounded (SVC_STUDIO_STORE=state): every serving replica deletes
 * (RetentionSweep) loops and sessions not written for SVC_STUDIO_RETENTION_DAYS, and beyond the
 * newest STUDIO_RECORDS_PER_TENANT settled loops and sessions of a tenant (as the memory store
 * keeps), in bounded DELETEs.
 */
@Injectable()
export class StudioRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly config: StudioConfig;
  private readonly sweeper: RetentionSweep;

  constructor(
    private readonly tables: StudioTables,
    private readonly serving: ServingSignal,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.config = config.get('studio', { infer: true });
    this.sweeper = new RetentionSweep({
      logger: new Logger('Studio'),
      what: 'studio records',
      atStart: true,
      sweep: async (now) => {
        const cutoff = now - this.config.retentionDays * DAY_MS;
        const aged = await pruneInBatches(
          (limit) => this.tables.pruneOlderThan(cutoff, limit),
          PRUNE_BATCH,
          PRUNE_ROUNDS,
        );
        return aged + (await this.tables.pruneBeyond(STUDIO_RECORDS_PER_TENANT, CROWDED_TENANTS));
      },
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.store === 'state') this.sweeper.start(this.serving);
  }

  onApplicationShutdown(): void {
    this.sweeper.stop();
  }

  /** One sweep; answers how many rows went. Never throws. */
  sweep(now = Date.now()): Promise<number> {
    return this.config.store === 'state' ? this.sweeper.run(now) : Promise.resolve(0);
  }
}
