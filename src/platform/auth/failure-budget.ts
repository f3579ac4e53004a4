/** Addresses tracked at once; past this the least recently failing one is forgotten. */
export const MAX_TRACKED_ADDRESSES = 50_000;

interface Window {
  failures: number;
  /** Epoch ms at which this address's window ends and its budget is whole again. */
  resetAt: number;
}

export interface FailureBudgetLimits {
  /** Failures per address per window; 0 turns the budget off. */
  limit: number;
  windowMs: number;
  maxAddresses?: number;
}

/**
 * Failed authentications per client address in a fixed window that starts at the address's
 * first failure. Once an address has spent `limit`, it is refused until its window ends, with
 * a valid key too: answering a valid key differently would let a blocked client go on guessing.
 * Refusals do not extend the window, so a client can always try again after `Retry-After`.
 * Success never resets the count (a client holding one valid key could otherwise go on guessing
 * other keys between its own successful requests).
 *
 * Memory is bounded: at most `maxAddresses` windows, kept in a Map whose order is the order of
 * the last failure; the stalest is dropped for a new address, and expired ones are pruned as
 * failures arrive.
 */
export class FailureBudget {
  private readonly windows = new Map<string, Window>();
  private readonly maxAddresses: number;

  constructor(
    private readonly limits: FailureBudgetLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.maxAddresses = limits.maxAddresses ?? MAX_TRACKED_ADDRESSES;
  }

  get enabled(): boolean {
    return this.limits.limit > 0;
  }

  get size(): number {
    return this.windows.size;
  }

  /** Whole seconds until `address` may try again; 0 when it may try now. */
  retryAfter(address: string): number {
    if (!this.enabled) return 0;
    const window = this.current(address);
    if (!window || window.failures < this.limits.limit) return 0;
    return Math.max(1, Math.ceil((window.resetAt - this.now()) / 1000));
  }

  /** Counts one failed authentication of `address`. */
  fail(address: string): void {
    if (!this.enabled) return;
    this.prune();
    const window = this.current(address) ?? {
      failures: 0,
      resetAt: this.now() + this.limits.windowMs,
    };
    window.failures += 1;
    this.windows.delete(address);
    if (this.windows.size >= this.maxAddresses) {
      const stalest = this.windows.keys().next();
      if (!stalest.done) this.windows.delete(stalest.value);
    }
    this.windows.set(address, window);
  }

  private current(address: string): Window | undefined {
    const window = this.windows.get(address);
    if (window && window.resetAt <= this.now()) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }

  /** Drops a few expired windows from the stale end (amortised; the bound holds regardless). */
  private prune(): void {
    const now = this.now();
    let checked = 0;
    for (const [address, window] of this.windows) {
      if (window.resetAt > now || ++checked > 8) break;
      this.windows.delete(address);
    }
  }
}
