import { describe, expect, it } from '@jest/globals';
import type { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import type { HeldLease, LeaseKeeper } from '../../platform/state/lease-keeper.service.js';
import type { EntryWrite } from '../../platform/state/state-store.js';
import { RunLeases, ShuttingDown, stopRunsAfterMs } from './run-lease.js';

/**
 * A lease keeper whose leases record how they were given up, and can be made to fail. `lost`
 * loses every lease it gave; `watchers` are the loss hooks its leases hold now.
 */
function keeper(options: { failGivingUp?: boolean; taken?: boolean } = {}) {
  const ended: string[] = [];
  const watchers = new Set<(reason: Error) => void>();
  let lostWith: Error | undefined;
  const lost = {
    abort(reason: Error) {
      lostWith = reason;
      for (const hook of [...watchers]) hook(reason);
    },
  };
  const fake = {
    acquire: (_tenant: string, key: string): Promise<HeldLease | null> => {
      if (options.taken) return Promise.resolve(null);
      const giveUp = (how: string) => () => {
        ended.push(`${how} ${key}`);
        return options.failGivingUp
          ? Promise.reject(new Error('database down'))
          : Promise.resolve();
      };
      let watcher: ((reason: Error) => void) | undefined;
      return Promise.resolve({
        key,
        get isLost() {
          return lostWith !== undefined;
        },
        onLost(hook: ((reason: Error) => void) | null) {
          if (watcher) watchers.delete(watcher);
          watcher = hook ?? undefined;
          if (hook) watchers.add(hook);
          if (hook && lostWith) hook(lostWith);
        },
        release: giveUp('released'),
        handOver: giveUp('handed over'),
        releaseWith: (write: EntryWrite) => ended.push(`released ${key} with v${write.version}`),
      } as unknown as HeldLease);
    },
  };
  return { keeper: fake as unknown as LeaseKeeper, ended, lost, watchers };
}

const config = (shutdownTimeoutMs = 1000) =>
  ({ get: () => ({ shutdownTimeoutMs }) }) as unknown as ConfigService<GatewayConfig, true>;

describe('RunLeases', () => {
  it('never fails a run because its lease could not be given up', async () => {
    const { keeper: leases, ended } = keeper({ failGivingUp: true });
    const runs = new RunLeases(leases, config());
    const settled = await runs.claim('acme', 'r1');
    await expect(settled!.finish()).resolves.toBeUndefined();
    const unfinished = await runs.claim('acme', 'r2');
    await expect(unfinished!.handOver()).resolves.toBeUndefined();
    expect(ended).toEqual(['released run:r1', 'handed over run:r2']);
  });

  it('answers null while another owner holds the lease', async () => {
    const runs = new RunLeases(keeper({ taken: true }).keeper, config());
    expect(await runs.claim('acme', 'r1')).toBeNull();
  });

  it("aborts a run's signal when its lease is lost", async () => {
    const { keeper: leases, lost } = keeper();
    const lease = await new RunLeases(leases, config()).claim('acme', 'r1');
    lost.abort(new Error('taken over'));
    expect(lease!.signal.aborted).toBe(true);
  });

  it('at shutdown stops every run, waits until each handed its lease over, and claims no more', async () => {
    const { keeper: leases, ended } = keeper();
    const runs = new RunLeases(leases, config());
    const lease = await runs.claim('acme', 'r1');
    lease!.signal.addEventListener('abort', () => void lease!.handOver());
    await runs.onApplicationShutdown();
    expect(lease!.signal.reason).toBeInstanceOf(ShuttingDown);
    expect(ended).toEqual(['handed over run:r1']);
    await expect(runs.claim('acme', 'r2')).rejects.toBeInstanceOf(ShuttingDown);
  });

  it('lets runs use the drain, stopping them before the drain cuts their callers off', async () => {
    const { keeper: leases } = keeper();
    const runs = new RunLeases(leases, config(200));
    const lease = await runs.claim('acme', 'r1');
    runs.beforeApplicationShutdown();
    expect(lease!.signal.aborted).toBe(false);
    await new Promise((resolve) => lease!.signal.addEventListener('abort', resolve));
    expect(lease!.signal.reason).toBeInstanceOf(ShuttingDown);
    await lease!.handOver();
  });

  it('keeps nothing of a finished run: its lease is forgotten and its watcher removed', async () => {
    const { keeper: leases, watchers } = keeper();
    const runs = new RunLeases(leases, config());
    const settled = await Promise.all(['r1', 'r2', 'r3'].map((id) => runs.claim('acme', id)));
    const running = await runs.claim('acme', 'r4');
    expect(runs.allHeld()).toHaveLength(4);
    expect(watchers.size).toBe(4);
    await settled[0]!.finish();
    await settled[1]!.handOver();
    await settled[2]!.finish();
    expect(runs.allHeld()).toEqual([running]);
    expect(watchers.size).toBe(1);
    running!.signal.addEventListener('abort', () => void running!.handOver());
    await runs.onApplicationShutdown();
    expect(running!.signal.reason).toBeInstanceOf(ShuttingDown);
    expect(runs.allHeld()).toHaveLength(0);
    expect(watchers.size).toBe(0);
    expect(settled.map((lease) => lease!.signal.aborted)).toEqual([false, false, false]);
  });

  it('stops a run whose claim was in flight when the runs were stopped', async () => {
    let grant!: () => void;
    const { keeper: inner } = keeper();
    const slow = {
      acquire: async (tenant: string, key: string) => {
        await new Promise<void>((resolve) => (grant = resolve));
        return inner.acquire(tenant, key);
      },
    } as unknown as LeaseKeeper;
    const runs = new RunLeases(slow, config());
    const claiming = runs.claim('acme', 'late');
    const shutdown = runs.onApplicationShutdown();
    grant();
    const lease = await claiming;
    expect(lease!.signal.reason).toBeInstanceOf(ShuttingDown);
    await lease!.handOver();
    await shutdown;
  });

  it('stops runs up to a second before the drain ends, and at once without a drain', () => {
    expect(stopRunsAfterMs(25_000)).toBe(24_000);
    expect(stopRunsAfterMs(1000)).toBe(500);
    expect(stopRunsAfterMs(0)).toBe(0);
  });

  it('releases the leases held alongside a run with its settled record, until let go', async () => {
    const { keeper: leases, ended } = keeper();
    const lease = (await new RunLeases(leases, config()).claim('acme', 'r1'))!;
    const session = (await leases.acquire('acme', 'session:s1'))!;
    const letGo = lease.holdAlongside(session);
    const write = (version: number): EntryWrite => ({
      key: { tenantId: 'acme', sessionId: 'run:r1', key: 'record' },
      version,
      json: '{}',
    });
    lease.releaseWith(write(4));
    letGo();
    lease.releaseWith(write(5));
    expect(ended).toEqual([
      'released run:r1 with v4',
      'released session:s1 with v4',
      'released run:r1 with v5',
    ]);
  });
});
