import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../config/gateway-config.js';
import { type HeldLease, LeaseKeeper } from './lease-keeper.service.js';
import {
  type EntryWrite,
  LeaseLostError,
  type StateStore,
  StateUnavailableError,
} from './state-store.js';

const TTL_MS = 3_000;
const RENEW_EVERY_MS = TTL_MS / 3;

/** The lease calls of a StateStore, answered by the test: the backend is up, down or hanging. */
class LeaseStore {
  mode: 'up' | 'down' | 'hang' | 'taken' = 'up';
  renewals = 0;
  readonly owner = 'this-process';

  /** How the next claims answer: granted, held by another owner, or failed. */
  claims: 'granted' | 'held' | 'failed' = 'granted';
  claimed: string[] = [];
  releases = 0;

  claimRunLease(tenantId: string, runId: string, ttlMs: number) {
    this.claimed.push(runId);
    if (this.claims === 'failed') {
      return Promise.reject(new StateUnavailableError('the state backend cannot be reached'));
    }
    if (this.claims === 'held') return Promise.resolve(null);
    return Promise.resolve({ tenantId, runId, owner: this.owner, expiresAt: Date.now() + ttlMs });
  }

  renewRunLease(): Promise<boolean> {
    this.renewals += 1;
    switch (this.mode) {
      case 'up':
        return Promise.resolve(true);
      case 'taken':
        return Promise.resolve(false);
      case 'hang':
        return new Promise<boolean>(() => undefined);
      case 'down':
        return Promise.reject(new StateUnavailableError('the state backend cannot be reached'));
    }
  }

  /** Releases sent with a write, and whether that write holds. */
  releasedWith: EntryWrite[] = [];
  writeHolds = true;
  releaseRunLease = (_tenantId: string, _runId: string, onlyIf?: EntryWrite) => {
    if (onlyIf) {
      this.releasedWith.push(onlyIf);
      return Promise.resolve(this.writeHolds);
    }
    this.releases += 1;
    return Promise.resolve(true);
  };
  expireRunLease = () => Promise.resolve(true);
}

const config = { get: () => ({ leaseTtlMs: TTL_MS }) } as unknown as ConfigService<
  GatewayConfig,
  true
>;

describe('HeldLease', () => {
  let store: LeaseStore;
  let keeper: LeaseKeeper;
  let warn: jest.SpiedFunction<Logger['warn']>;
  let log: jest.SpiedFunction<Logger['log']>;

  beforeEach(() => {
    jest.useFakeTimers();
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    store = new LeaseStore();
    keeper = new LeaseKeeper(store as unknown as StateStore, config);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  const acquire = async (key = 'run:r1'): Promise<HeldLease> => {
    const lease = await keeper.acquire('t', key);
    if (!lease) throw new Error('the lease was not granted');
    return lease;
  };
  const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

  it('stays held while renewals succeed, for many TTLs', async () => {
    const lease = await acquire();
    await advance(10 * TTL_MS);
    expect(lease.signal.aborted).toBe(false);
    expect(store.renewals).toBeGreaterThanOrEqual(29);
    await lease.release();
  });

  it('keeps one timer per lease while held, and none once released', async () => {
    const before = jest.getTimerCount();
    const leases = await Promise.all(['run:a', 'run:b'].map((key) => acquire(key)));
    expect(jest.getTimerCount() - before).toBe(2);
    await advance(3 * RENEW_EVERY_MS);
    expect(jest.getTimerCount() - before).toBe(2);
    await Promise.all(leases.map((lease) => lease.release()));
    expect(jest.getTimerCount()).toBe(before);
  });

  it('aborts with StateUnavailableError once no renewal has held for a whole TTL', async () => {
    const lease = await acquire();
    await advance(RENEW_EVERY_MS); // one renewal held
    store.mode = 'down';
    await advance(TTL_MS - 1);
    expect(lease.signal.aborted).toBe(false);
    await advance(1);
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toBeInstanceOf(StateUnavailableError);
    expect((lease.signal.reason as Error).message).toContain('another process may hold it now');
    await lease.handOver();
  });

  it('rides out an outage shorter than the TTL', async () => {
    const lease = await acquire();
    await advance(RENEW_EVERY_MS); // held until 4 s
    store.mode = 'down';
    await advance(RENEW_EVERY_MS + RENEW_EVERY_MS / 2); // the renewal at 2 s fails
    store.mode = 'up'; // the one at 3 s holds, before the 4 s deadline
    await advance(RENEW_EVERY_MS);
    await advance(5 * TTL_MS);
    expect(lease.signal.aborted).toBe(false);
    await lease.release();
  });

  it('aborts on time when a renewal hangs, and sends no second one meanwhile', async () => {
    const lease = await acquire();
    store.mode = 'hang';
    await advance(TTL_MS);
    expect(lease.signal.reason).toBeInstanceOf(StateUnavailableError);
    expect(store.renewals).toBe(1);
    await lease.handOver();
  });

  it('aborts with LeaseLostError when another process took the lease', async () => {
    const lease = await acquire();
    store.mode = 'taken';
    await advance(RENEW_EVERY_MS);
    expect(lease.signal.reason).toBeInstanceOf(LeaseLostError);
    await lease.handOver();
  });

  it('tells its loss watcher once, at once when it comes late, and not once forgotten', async () => {
    const [watched, forgotten] = await Promise.all(['run:w', 'run:f'].map((key) => acquire(key)));
    const heard: Array<[string, unknown]> = [];
    watched.onLost((reason) => heard.push(['watched', reason]));
    forgotten.onLost((reason) => heard.push(['forgotten', reason]));
    forgotten.onLost(null);
    store.mode = 'taken';
    await advance(TTL_MS);
    expect(heard).toHaveLength(1);
    expect(heard[0][0]).toBe('watched');
    expect(heard[0][1]).toBeInstanceOf(LeaseLostError);
    expect(watched.isLost).toBe(true);
    // Asked for after the loss, the signal has aborted with the same reason.
    expect(watched.signal.reason).toBe(heard[0][1]);
    forgotten.onLost((reason) => heard.push(['late', reason]));
    expect(heard.map(([who]) => who)).toEqual(['watched', 'late']);
    await Promise.all([watched.handOver(), forgotten.handOver()]);
  });

  it('stops renewing and never aborts once released', async () => {
    const lease = await acquire();
    await lease.release();
    const renewals = store.renewals;
    store.mode = 'down';
    await advance(5 * TTL_MS);
    expect(lease.signal.aborted).toBe(false);
    expect(store.renewals).toBe(renewals);
  });

  it('logs an outage once for all leases, and once when renewals work again', async () => {
    const leases = await Promise.all(['run:a', 'run:b', 'session:c'].map((key) => acquire(key)));
    store.mode = 'down';
    await advance(TTL_MS / 2);
    store.mode = 'up';
    await advance(TTL_MS / 2);
    store.mode = 'down';
    await advance(TTL_MS / 2);
    const failed = (call: unknown[]) => String(call[1]).includes('renewing leases failed');
    expect(warn.mock.calls.filter(failed)).toHaveLength(2); // two outages, however many ticks
    expect(log.mock.calls.filter((call) => String(call[0]).includes('works again'))).toHaveLength(
      1,
    );
    await Promise.all(leases.map((lease) => lease.release()));
  });

  it("holds a new key's lease at once, with its claim sent before it is answered", async () => {
    const { lease, claimed } = keeper.acquireNew('t', 'run:new')!;
    expect(store.claimed).toEqual(['run:new']); // sent, not awaited
    expect(lease.signal.aborted).toBe(false);
    await expect(claimed).resolves.toBeUndefined();
    expect(await keeper.acquire('t', 'run:new')).toBeNull(); // held here
    expect(keeper.acquireNew('t', 'run:new')).toBeNull(); // a caller's key asked for twice
    expect(store.claimed).toEqual(['run:new']);
    await advance(3 * TTL_MS);
    expect(lease.signal.aborted).toBe(false);
    await lease.release();
    expect(store.releases).toBe(1);
  });

  it.each([
    ['finds the key held by another process', 'held' as const, LeaseLostError],
    ['fails', 'failed' as const, StateUnavailableError],
  ])(
    'stops the work when the claim of a new key %s, and gives nothing up',
    async (_, claims, why) => {
      store.claims = claims;
      const { lease, claimed } = keeper.acquireNew('t', 'run:new')!;
      await expect(claimed).rejects.toBeInstanceOf(why);
      expect(lease.signal.reason).toBeInstanceOf(why);
      await lease.release();
      expect(store.releases).toBe(0);
      await advance(3 * TTL_MS);
      expect(store.renewals).toBe(0);
      // Not held here any more: the key can be claimed again.
      store.claims = 'granted';
      const again = await acquire('run:new');
      await again.release();
    },
  );

  const settled: EntryWrite = {
    key: { tenantId: 't', sessionId: 'run:r1', key: 'record' },
    version: 3,
    json: '{"status":"completed"}',
  };

  it('is given up with a write that holds, and nothing is left to release', async () => {
    const lease = await acquire();
    lease.releaseWith(settled);
    expect(store.releasedWith).toEqual([settled]); // sent at once, with the write
    await lease.release();
    expect(store.releases).toBe(0);
    const renewals = store.renewals;
    await advance(3 * TTL_MS);
    expect(store.renewals).toBe(renewals);
    expect(lease.signal.aborted).toBe(false);
    const again = await acquire(); // not held here any more
    await again.release();
  });

  it('stays held when the write it was sent with does not hold', async () => {
    store.writeHolds = false;
    const lease = await acquire();
    lease.releaseWith(settled);
    await advance(2 * TTL_MS);
    expect(lease.signal.aborted).toBe(false);
    expect(store.renewals).toBeGreaterThanOrEqual(5);
    expect(await keeper.acquire('t', 'run:r1')).toBeNull();
    await lease.handOver();
    expect(store.releases).toBe(0);
  });
});
