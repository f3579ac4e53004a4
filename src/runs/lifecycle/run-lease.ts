import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { type HeldLease, LeaseKeeper } from '../../platform/state/lease-keeper.service.js';
import { runScope } from '../../platform/state/state-scopes.js';
import type { EntryWrite } from '../../platform/state/state-store.js';

/** How long shutdown waits for this process's runs to stop and hand their leases over. */
const STOP_WAIT_MS = 10_000;

/**
 * When, within a drain of `drainMs`, runs still executing are stopped: late enough that most
 * runs finish in the drain, early enough that the stopped ones hand over and answer their
 * callers (503) before the drain cuts the connections.
 */
export function stopRunsAfterMs(drainMs: number): number {
  return Math.max(0, drainMs - Math.min(1000, drainMs / 2));
}

/** Why a run stopped on this replica while it still had work: the process is shutting down. */
export class ShuttingDown extends Error {
  override readonly name = 'ShuttingDown';
  constructor() {
    super('the process is shutting down');
  }
}

/** Why a run stopped: someone cancelled it (POST /v1/runs/{id}/cancel). */
export class RunCancelled extends Error {
  override readonly name = 'RunCancelled';
  constructor(readonly by: string | null) {
    super('the run was cancelled');
  }
}

/**
 * A run's lease, held by this process while it executes the run. The one error policy of the
 * lease protocol lives here: giving a lease up never throws, because by then the run is either
 * recorded as settled (a lease that could not be released just expires, and the next sweep
 * releases it) or left for another replica (an expired lease is what it looks for).
 */
export class RunLease {
  private readonly stop = new AbortController();
  private readonly alongside = new Set<HeldLease>();
  /** Aborts when the lease was lost, the process is stopping its runs, or the run is cancelled. */
  readonly signal: AbortSignal = this.stop.signal;

  constructor(
    private readonly held: HeldLease,
    private readonly logger: Logger,
    private readonly done: () => void,
    readonly tenantId: string,
    readonly runId: string,
    /**
     * Resolves once the database has the lease: at once for a claim that was awaited; for a new
     * run's (RunLeases.claimNew), when its claim answers, which the run awaits with its first
     * record, before anything it cannot take back.
     */
    readonly claimed: Promise<void> = Promise.resolve(),
  ) {
    // The held lease calls back when lost: one signal per run, not a second one linked to it.
    held.onLost((reason) => this.abort(reason));
  }

  /** Stops the run's execution here (in-flight model and tool calls abort) to settle it cancelled. */
  cancel(by: string | null): void {
    this.abort(new RunCancelled(by));
  }

  /** The process is stopping its runs: this one hands over (RunLeases.stopRuns). */
  stopForShutdown(): void {
    this.abort(new ShuttingDown());
  }

  /** The cancellation that stopped the run, when one did (and the lease is still held). */
  get cancelled(): RunCancelled | null {
    const reason: unknown = this.signal.reason;
    return reason instanceof RunCancelled && !this.held.isLost ? reason : null;
  }

  /** The first reason stays (a later abort keeps it, as a signal does). */
  private abort(reason: Error): void {
    if (!this.stop.signal.aborted) this.stop.abort(reason);
  }

  /**
   * The lease goes with `write` (the run's settled record), in its transaction, if the write
   * holds; `finish` then has nothing left to give up in the database. So do the leases held
   * alongside it (`holdAlongside`).
   */
  releaseWith(write: EntryWrite): void {
    this.held.releaseWith(write);
    for (const lease of this.alongside) lease.releaseWith(write);
  }

  /**
   * A lease the run holds besides its own while it executes (its session's), released with its
   * settled record too; its holder still releases it as before (nothing is left to do then).
   * Returns the function that lets go of it here.
   */
  holdAlongside(lease: HeldLease): () => void {
    this.alongside.add(lease);
    return () => this.alongside.delete(lease);
  }

  /** The run settled (or never started): the lease goes, the next claim wins at once. */
  async finish(): Promise<void> {
    await this.end(() => this.held.release(), 'release');
  }

  /** The run is unfinished here: the lease is left expired for another replica's sweep. */
  async handOver(): Promise<void> {
    await this.end(() => this.held.handOver(), 'hand over');
  }

  private async end(giveUp: () => Promise<void>, what: string): Promise<void> {
    try {
      await giveUp();
    } catch (err) {
      this.logger.warn({ err, lease: this.held.key }, `could not ${what} a run lease; it expires`);
    } finally {
      this.held.onLost(null);
      this.done();
    }
  }
}

/**
 * Claims run leases (`run:<id>`, renewed every TTL/3 by LeaseKeeper) for every way a run is
 * executed here: a new run, a retried run id, an approval decision, a takeover by the sweep. At
 * shutdown, runs get the drain (SVC_SHUTDOWN_TIMEOUT_MS) to finish; shortly before it ends,
 * every run this process still executes is stopped (its signal aborts with ShuttingDown), so it
 * hands its lease over while its caller can still be answered and before the state backend
 * closes, and another replica continues it from its checkpoint: a run never executes on two
 * replicas at once.
 */
@Injectable()
export class RunLeases implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(RunLeases.name);
  /** Set once runs are stopped: no run is claimed after it. */
  private stopping = false;
  private readonly held = new Map<string, RunLease>();
  private readonly idle: Array<() => void> = [];
  private readonly drainMs: number;
  private stopTimer?: NodeJS.Timeout;

  constructor(
    private readonly leases: LeaseKeeper,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.drainMs = config.get('server', { infer: true }).shutdownTimeoutMs;
  }

  /** The run's lease, or null while another process (or request here) holds it. */
  async claim(tenantId: string, runId: string): Promise<RunLease | null> {
    if (this.stopping) throw new ShuttingDown();
    const held = await this.leases.acquire(tenantId, runScope(runId));
    return held ? this.track(held, tenantId, runId) : null;
  }

  /**
   * The lease of a run not recorded yet, held at once: its claim is sent with the run's first
   * record (LeaseKeeper.acquireNew), which is written only if the claim holds
   * (RunRecordStore.create). `claimed` on the lease tells when the database has it, and rejects
   * with LeaseLostError when another process holds it. Null while a request here holds it.
   */
  claimNew(tenantId: string, runId: string): RunLease | null {
    if (this.stopping) throw new ShuttingDown();
    const held = this.leases.acquireNew(tenantId, runScope(runId));
    return held && this.track(held.lease, tenantId, runId, held.claimed);
  }

  private track(
    held: HeldLease,
    tenantId: string,
    runId: string,
    claimed?: Promise<void>,
  ): RunLease {
    const lease: RunLease = new RunLease(
      held,
      this.logger,
      () => this.forget(lease),
      tenantId,
      runId,
      claimed,
    );
    this.held.set(heldKey(tenantId, runId), lease);
    // Claimed while the runs were being stopped: stopped at once, like the others.
    if (this.stopping) lease.stopForShutdown();
    return lease;
  }

  /** The lease of a run this process executes now, if it does. */
  heldFor(tenantId: string, runId: string): RunLease | undefined {
    return this.held.get(heldKey(tenantId, runId));
  }

  /** Every run lease this process holds now. */
  allHeld(): RunLease[] {
    return [...this.held.values()];
  }

  /** The drain begins (the HTTP server stops accepting): runs are stopped before it ends. */
  beforeApplicationShutdown(): void {
    this.stopTimer = setTimeout(() => this.stopRuns(), stopRunsAfterMs(this.drainMs));
    this.stopTimer.unref();
  }

  /** Stops this process's runs and waits (bounded) until each has given its lease up. */
  async onApplicationShutdown(): Promise<void> {
    this.stopRuns();
    if (this.held.size === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, STOP_WAIT_MS);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Stops every run held here. The held map is the list: no listener per run on a process-wide
   * signal, which would be one more per run in flight for the whole run.
   */
  private stopRuns(): void {
    clearTimeout(this.stopTimer);
    this.stopping = true;
    for (const lease of this.held.values()) lease.stopForShutdown();
  }

  private forget(lease: RunLease): void {
    const key = heldKey(lease.tenantId, lease.runId);
    if (this.held.get(key) === lease) this.held.delete(key);
    if (this.held.size === 0) this.idle.splice(0).forEach((resolve) => resolve());
  }
}

const heldKey = (tenantId: string, runId: string) => `${tenantId}\u0000${runId}`;
