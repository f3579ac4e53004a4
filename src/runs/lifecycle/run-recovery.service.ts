import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { RunRecordStore } from '../record/run-record.store.js';
import { type HeldLease, LeaseKeeper } from '../../platform/state/lease-keeper.service.js';
import { RUN_LEASE_PREFIX } from '../../platform/state/state-scopes.js';
import { StateStore } from '../../platform/state/state-store.js';
import { GraphRunner } from '../graph/graph-runner.service.js';

/** Expired leases looked at per sweep. */
const SWEEP_BATCH = 20;

/**
 * Finds runs whose owner stopped renewing their lease (the process died, or shut down) and takes
 * them over: every replica sweeps for expired run leases every half TTL, claims one atomically
 * (so exactly one replica wins), and continues a graph run that was still `running` from its
 * checkpoint. Any other run's stale lease is just released.
 */
@Injectable()
export class RunRecovery implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunRecovery.name);
  private readonly stopping = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private sweeping = false;
  private readonly enabled: boolean;

  constructor(
    private readonly store: StateStore,
    private readonly leases: LeaseKeeper,
    private readonly records: RunRecordStore,
    private readonly graphs: GraphRunner,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.enabled = config.get('state', { infer: true }).takeOverRuns;
  }

  onApplicationBootstrap(): void {
    // `svc run` is a one-shot process: it must not adopt other replicas' runs.
    if (!this.enabled) return;
    const every = Math.min(Math.max(Math.floor(this.leases.ttlMs / 2), 100), 10_000);
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort(new Error('the process is shutting down'));
    await Promise.allSettled(this.inFlight);
  }

  /** One pass; public so tests and `svc` can trigger it. Never throws. */
  async sweep(): Promise<number> {
    if (this.sweeping || this.stopping.signal.aborted) return 0;
    this.sweeping = true;
    let taken = 0;
    try {
      for (const { tenantId, key } of await this.store.listExpiredRunLeases(SWEEP_BATCH)) {
        if (this.stopping.signal.aborted) break;
        const lease = await this.leases.acquire(tenantId, key);
        if (!lease) continue; // another replica won it
        taken += 1;
        const work = this.recover(tenantId, key.slice(RUN_LEASE_PREFIX.length), lease);
        this.inFlight.add(work);
        void work.finally(() => this.inFlight.delete(work));
      }
    } catch (error) {
      // The backend may be down or not migrated yet; the next sweep tries again.
      this.logger.debug(`run recovery sweep failed: ${String(error)}`);
    } finally {
      this.sweeping = false;
    }
    return taken;
  }

  private async recover(tenantId: string, runId: string, lease: HeldLease): Promise<void> {
    let unfinished = false;
    try {
      const stored = await this.records.getVersioned(tenantId, runId);
      if (stored?.record.graph && stored.record.status === 'running') {
        this.logger.log(`taking over graph run ${runId} of tenant ${tenantId}`);
        await this.graphs.takeOver(stored, AbortSignal.any([lease.signal, this.stopping.signal]));
      }
    } catch (error) {
      unfinished = true;
      this.logger.warn(`taking over run ${runId} failed: ${String(error)}`);
    } finally {
      await (unfinished ? lease.handOver() : lease.release()).catch(() => undefined);
    }
  }
}
