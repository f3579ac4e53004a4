import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { ServingSignal } from '../../platform/http/serving-signal.js';
import { OutageLog } from '../../platform/logging/outage-log.js';
import { LeaseKeeper } from '../../platform/state/lease-keeper.service.js';
import { RUN_LEASE_PREFIX } from '../../platform/state/state-scopes.js';
import { StateStore } from '../../platform/state/state-store.js';
import { AgentRunner } from '../agent-runner.service.js';
import { RunLeases } from './run-lease.js';

/** Expired leases looked at per sweep. */
const SWEEP_BATCH = 20;

/**
 * Finds runs whose owner stopped renewing their lease (the process died, shut down or lost the
 * backend) and continues them: every replica sweeps for expired run leases every half TTL,
 * claims one atomically (so exactly one replica wins), and hands it to AgentRunner, which
 * continues a plain or graph run that is still unsettled from its checkpoint (and just gives up
 * a lease whose run settled, or was never recorded). No retry by the client is needed. Sweeping
 * starts once the process serves (ServingSignal): one that cannot listen must not adopt runs.
 */
@Injectable()
export class RunRecovery
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger(RunRecovery.name);
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private sweeping = false;
  private stopped = false;
  private readonly outage = new OutageLog(this.logger, 'run recovery sweep');
  private readonly enabled: boolean;

  constructor(
    private readonly store: StateStore,
    private readonly keeper: LeaseKeeper,
    private readonly leases: RunLeases,
    private readonly runner: AgentRunner,
    private readonly serving: ServingSignal,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.enabled = config.get('state', { infer: true }).takeOverRuns;
  }

  onApplicationBootstrap(): void {
    // `svc run` is a one-shot process: it must not adopt other replicas' runs (nor does it serve).
    if (!this.enabled) return;
    this.serving.whenServing(() => {
      if (this.stopped) return;
      const every = Math.min(Math.max(Math.floor(this.keeper.ttlMs / 2), 100), 10_000);
      this.timer = setInterval(() => void this.sweep(), every);
      this.timer.unref();
    });
  }

  /** A draining replica takes no run over: it would only hand it over again. */
  beforeApplicationShutdown(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  async onApplicationShutdown(): Promise<void> {
    this.beforeApplicationShutdown();
    // RunLeases stops the runs themselves; these promises end once they have handed over.
    await Promise.allSettled(this.inFlight);
  }

  /** One pass; public so tests and `svc` can trigger it. Never throws. */
  async sweep(): Promise<number> {
    if (this.sweeping || this.stopped) return 0;
    this.sweeping = true;
    let taken = 0;
    try {
      for (const { tenantId, key } of await this.store.listExpiredRunLeases(SWEEP_BATCH)) {
        if (this.stopped) break;
        const runId = key.slice(RUN_LEASE_PREFIX.length);
        const lease = await this.leases.claim(tenantId, runId);
        if (!lease) continue; // another replica won it
        taken += 1;
        const work = this.runner.recover(tenantId, runId, lease);
        this.inFlight.add(work);
        void work.finally(() => this.inFlight.delete(work));
      }
      this.outage.succeeded();
    } catch (err) {
      // The backend may be down or not migrated yet; the next sweep tries again.
      this.outage.failed(err);
    } finally {
      this.sweeping = false;
    }
    return taken;
  }
}
