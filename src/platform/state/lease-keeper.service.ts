import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayConfig } from '../config/gateway-config.js';
import { OutageLog } from '../logging/outage-log.js';
import {
  type EntryWrite,
  LeaseLostError,
  StateStore,
  StateUnavailableError,
} from './state-store.js';

/**
 * A lease this process holds and renews every TTL/3 until released. Its signal aborts when the
 * lease was taken over (LeaseLostError), or when no renewal has held for a whole TTL
 * (StateUnavailableError): by then the lease may have expired and be another replica's, so the
 * work must stop and hand over, as if it had been lost.
 */
export class HeldLease {
  /** Made when someone asks for `signal` (a run's lease is watched through `onLost` instead). */
  private lost?: AbortController;
  private lostReason?: Error;
  private lostHook?: (reason: Error) => void;
  private readonly renewEveryMs: number;
  /**
   * One timer per lease: it fires for the next renewal, or at the deadline when that comes
   * first (a lease's life is mostly shorter than a renewal period, so most never fire).
   */
  private timer?: NodeJS.Timeout;
  /** The lease is surely ours until then (by this clock); past it, the work stops. */
  private heldUntil: number;
  private released = false;
  private renewing = false;
  /** A release sent with a write (releaseWith), until it answers. */
  private releasing?: Promise<unknown>;

  constructor(
    private readonly store: StateStore,
    readonly tenantId: string,
    readonly key: string,
    private readonly ttlMs: number,
    private readonly renewals: OutageLog,
    private readonly onRelease: () => void,
    /** When the claim was sent: the database's expiry is at least this plus the TTL. */
    claimedAt = Date.now(),
  ) {
    this.heldUntil = claimedAt + ttlMs;
    this.renewEveryMs = Math.max(Math.floor(ttlMs / 3), 50);
    this.schedule();
  }

  /** Aborts when the lease was lost or may be (this process must stop the work). */
  get signal(): AbortSignal {
    if (!this.lost) {
      this.lost = new AbortController();
      if (this.lostReason) this.lost.abort(this.lostReason);
    }
    return this.lost.signal;
  }

  /** The lease was lost, or may be (`signal` has aborted, or would have). */
  get isLost(): boolean {
    return this.lostReason !== undefined;
  }

  /**
   * Calls `hook` once when the lease is lost (at once if it was already); `null` forgets it.
   * One watcher, without a signal of its own: a run's lease makes no AbortController here.
   */
  onLost(hook: ((reason: Error) => void) | null): void {
    this.lostHook = hook ?? undefined;
    if (hook && this.lostReason) hook(this.lostReason);
  }

  async release(): Promise<void> {
    await this.releasing;
    await this.end(() => this.store.releaseRunLease(this.tenantId, this.key));
  }

  /**
   * Sends the release now, to be done only if `write` holds (in its statement group: the lease
   * goes in the transaction of the run's settled record). Once it has, the lease is given up
   * here; if it has not (the write failed), the lease is still held, and `release` or
   * `handOver` give it up as they would have.
   */
  releaseWith(write: EntryWrite): void {
    if (this.released || this.releasing) return;
    this.releasing = this.store.releaseRunLease(this.tenantId, this.key, write).then(
      (released) => {
        this.releasing = undefined;
        if (released) this.stop();
      },
      () => {
        this.releasing = undefined;
      },
    );
  }

  /**
   * Stops renewing and leaves the lease expired instead of deleted, for work this process could
   * not finish (it is shutting down, or failed mid-way): another replica's sweep takes it over.
   */
  async handOver(): Promise<void> {
    await this.releasing;
    await this.end(() => this.store.expireRunLease(this.tenantId, this.key));
  }

  private schedule(): void {
    const delay = Math.min(this.renewEveryMs, this.heldUntil - Date.now());
    this.timer = setTimeout(() => this.tick(), Math.max(delay, 0));
    this.timer.unref();
  }

  /** Past the deadline the work stops; otherwise the next tick is set and a renewal sent. */
  private tick(): void {
    if (this.released) return;
    if (Date.now() >= this.heldUntil) {
      this.markLost(
        new StateUnavailableError(
          `lease ${this.key} could not be renewed for ${this.ttlMs} ms; another process may hold it now`,
        ),
      );
      return;
    }
    this.schedule();
    void this.renew();
  }

  /** One renewal at a time: one that hangs is covered by the deadline, not piled on. */
  private async renew(): Promise<void> {
    if (this.renewing || this.released) return;
    this.renewing = true;
    const sent = Date.now();
    try {
      const held = await this.store.renewRunLease(this.tenantId, this.key, this.ttlMs);
      this.renewals.succeeded();
      if (this.released) return;
      if (held) this.heldUntil = sent + this.ttlMs;
      else this.markLost(new LeaseLostError(`lease ${this.key} was taken over by another process`));
    } catch (error) {
      this.renewals.failed(error);
    } finally {
      this.renewing = false;
    }
  }

  /**
   * The claim of this lease failed, or found the key held after all: the work stops (the signal
   * aborts with `reason`) and the lease is given up here, with nothing to give up in the
   * database.
   */
  lose(reason: Error): void {
    if (this.released) return;
    this.released = true;
    clearTimeout(this.timer);
    this.markLost(reason);
    this.onRelease();
  }

  /** The first loss counts, as an AbortSignal keeps its first reason. */
  private markLost(reason: Error): void {
    if (this.lostReason) return;
    this.lostReason = reason;
    this.lost?.abort(reason);
    this.lostHook?.(reason);
  }

  private async end(giveUp: () => Promise<boolean>): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearTimeout(this.timer);
    try {
      await giveUp();
    } finally {
      this.onRelease();
    }
  }

  /** Given up in the database already, or never held there: only this process forgets it. */
  private stop(): void {
    if (this.released) return;
    this.released = true;
    clearTimeout(this.timer);
    this.onRelease();
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
  /** Renewals fail together while the backend is away: one line per outage for all leases. */
  private readonly renewals = new OutageLog(this.logger, 'renewing leases');
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
      const claimedAt = Date.now();
      const lease = await this.store.claimRunLease(tenantId, key, this.ttlMs);
      if (lease) return this.held(tenantId, key, id, claimedAt);
    } catch (error) {
      this.heldHere.delete(id);
      throw error;
    }
    this.heldHere.delete(id);
    return null;
  }

  /**
   * The lease of a key that is likely free (a new run's id, made here or by a caller who has
   * not used it yet), held at once: its claim is sent now and not awaited, so what is asked for
   * in the same moment (the run's first record, written only under the lease) goes in the
   * claim's statement group, one transaction on either database, and waits no round trip of its
   * own. `claimed` resolves once the database has the lease. A claim that fails, or finds the
   * key held after all, aborts the lease's signal with the reason (the work stops before
   * anything it cannot take back) and rejects `claimed`. Null while this process holds it
   * already (a key a caller chose, asked for twice at once).
   */
  acquireNew(tenantId: string, key: string): { lease: HeldLease; claimed: Promise<void> } | null {
    const id = JSON.stringify([tenantId, key]);
    if (this.heldHere.has(id)) return null;
    this.heldHere.add(id);
    const lease = this.held(tenantId, key, id, Date.now());
    const claimed = this.store.claimRunLease(tenantId, key, this.ttlMs).then((row) => {
      if (!row) throw new LeaseLostError(`lease ${key} is held by another process`);
    });
    claimed.catch((error: unknown) => lease.lose(error as Error));
    return { lease, claimed };
  }

  private held(tenantId: string, key: string, id: string, claimedAt: number): HeldLease {
    const forget = () => this.heldHere.delete(id);
    return new HeldLease(this.store, tenantId, key, this.ttlMs, this.renewals, forget, claimedAt);
  }

  /** Waits (polling with backoff) up to `maxWaitMs` for the lease; null when it never came free. */
  async acquireWaiting(
    tenantId: string,
    key: string,
    maxWaitMs: number,
    signal?: AbortSignal,
  ): Promise<HeldLease | null> {
    const deadline = Date.now() + maxWaitMs;
    let step = WAIT_STEP_MIN_MS;
    for (;;) {
      signal?.throwIfAborted();
      const lease = await this.acquire(tenantId, key);
      if (lease || Date.now() + step > deadline) return lease;
      await sleep(step, undefined, signal ? { signal } : undefined).catch(() => undefined);
      step = Math.min(step * 2, WAIT_STEP_MAX_MS);
    }
  }
}
