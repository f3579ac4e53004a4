import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayConfig } from '../config/gateway-config.js';
import { LeaseLostError, StateStore } from './state-store.js';

/** A lease this process holds and renews every TTL/3 until released. */
export class HeldLease {
  private readonly lost = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private released = false;

  constructor(
    private readonly store: StateStore,
    readonly tenantId: string,
    readonly key: string,
    ttlMs: number,
    logger: Logger,
    private readonly onRelease: () => void,
  ) {
    this.timer = setInterval(
      () => {
        this.store
          .renewRunLease(tenantId, key, ttlMs)
          .then((held) => {
            if (!held && !this.released) {
              this.lost.abort(new LeaseLostError(`lease ${key} was taken over by another process`));
            }
          })
          .catch((error: unknown) => logger.warn(`lease ${key} renewal failed: ${String(error)}`));
      },
      Math.max(Math.floor(ttlMs / 3), 50),
    );
    this.timer.unref();
  }

  /** Aborts when another owner took the lease over (this process must stop the work). */
  get signal(): AbortSignal {
    return this.lost.signal;
  }

  async release(): Promise<void> {
    await this.end(() => this.store.releaseRunLease(this.tenantId, this.key));
  }

  /**
   * Stops renewing and leaves the lease expired instead of deleted, for work this process could
   * not finish (it is shutting down, or failed mid-way): another replica's sweep takes it over.
   */
  async handOver(): Promise<void> {
    await this.end(() => this.store.expireRunLease(this.tenantId, this.key));
  }

  private async end(giveUp: () => Promise<boolean>): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.timer);
    try {
      await giveUp();
    } finally {
      this.onRelease();
    }
  }
}

const WAIT_STEP_MIN_MS = 25;
const WAIT_STEP_MAX_MS = 500;

/**
 * Claims leases with SVC_LEASE_TTL_MS and keeps them renewed while the work runs. The database
 * lease tells processes apart (a re-claim by the same process renews it), so leases this process
 * holds are also tracked here: a second request in the same process waits or fails like one on
 * another replica.
 */
@Injectable()
export class LeaseKeeper {
  private readonly logger = new Logger(LeaseKeeper.name);
  private readonly heldHere = new Set<string>();
  readonly ttlMs: number;

  constructor(
    private readonly store: StateStore,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.ttlMs = config.get('state', { infer: true }).leaseTtlMs;
  }

  /** The lease, or null at once while another owner holds it. */
  async acquire(tenantId: string, key: string): Promise<HeldLease | null> {
    const id = JSON.stringify([tenantId, key]);
    if (this.heldHere.has(id)) return null;
    this.heldHere.add(id);
    try {
      const lease = await this.store.claimRunLease(tenantId, key, this.ttlMs);
      if (lease) {
        const forget = () => this.heldHere.delete(id);
        return new HeldLease(this.store, tenantId, key, this.ttlMs, this.logger, forget);
      }
    } catch (error) {
      this.heldHere.delete(id);
      throw error;
    }
    this.heldHere.delete(id);
    return null;
  }

  /** Waits (polling with backoff) up to `maxWaitMs` for the lease; null when it never came free. */
  async acquireWaiting(
    tenantId: string,
    key: string,
    maxWaitMs: number,
  ): Promise<HeldLease | null> {
    const deadline = Date.now() + maxWaitMs;
    let step = WAIT_STEP_MIN_MS;
    for (;;) {
      const lease = await this.acquire(tenantId, key);
      if (lease || Date.now() + step > deadline) return lease;
      await sleep(step);
      step = Math.min(step * 2, WAIT_STEP_MAX_MS);
    }
  }
}
