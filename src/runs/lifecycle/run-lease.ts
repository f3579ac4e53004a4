import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type HeldLease, LeaseKeeper } from '../../platform/state/lease-keeper.service.js';
import { runScope } from '../../platform/state/state-scopes.js';

/** How long shutdown waits for this process's runs to stop and hand their leases over. */
const STOP_WAIT_MS = 10_000;

/** Why a run stopped on this replica while it still had work: the process is shutting down. */
export class ShuttingDown extends Error {
  override readonly name = 'ShuttingDown';
  constructor() {
    super('the process is shutting down');
  }
}

/**
 * A run's lease, held by this process while it executes the run. The one error policy of the
 * lease protocol lives here: giving a lease up never throws, because by then the run is either
 * recorded as settled (a lease that could not be released just expires, and the next sweep
 * releases it) or left for another replica (an expired lease is what it looks for).
 */
export class RunLease {
  constructor(
    private readonly held: HeldLease,
    /** Aborts when the lease was lost or the process is stopping its runs. */
    readonly signal: AbortSignal,
    private readonly logger: Logger,
    private readonly done: () => void,
  ) {}

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
      this.done();
    }
  }
}

/**
 * Claims run leases (`run:<id>`, renewed every TTL/3 by LeaseKeeper) for every way a run is
 * executed here: a new run, a retried run id, an approval decision, a takeover by the sweep. At
 * shutdown it stops every run this process still executes (their signal aborts with
 * ShuttingDown), so they hand their leases over before the state backend closes and another
 * replica continues them from their checkpoints: a run never executes on two replicas at once.
 */
@Injectable()
export class RunLeases implements OnApplicationShutdown {
  private readonly logger = new Logger(RunLeases.name);
  private readonly stopping = new AbortController();
  private readonly held = new Set<RunLease>();
  private readonly idle: Array<() => void> = [];

  constructor(private readonly leases: LeaseKeeper) {}

  /** The run's lease, or null while another process (or request here) holds it. */
  async claim(tenantId: string, runId: string): Promise<RunLease | null> {
    if (this.stopping.signal.aborted) throw new ShuttingDown();
    const held = await this.leases.acquire(tenantId, runScope(runId));
    if (!held) return null;
    const lease: RunLease = new RunLease(
      held,
      AbortSignal.any([held.signal, this.stopping.signal]),
      this.logger,
      () => this.forget(lease),
    );
    this.held.add(lease);
    return lease;
  }

  /** Stops this process's runs and waits (bounded) until each has given its lease up. */
  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort(new ShuttingDown());
    if (this.held.size === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, STOP_WAIT_MS);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private forget(lease: RunLease): void {
    this.held.delete(lease);
    if (this.held.size === 0) this.idle.splice(0).forEach((resolve) => resolve());
  }
}
