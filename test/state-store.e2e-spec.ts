import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { LeaseKeeper } from '../src/platform/state/lease-keeper.service.js';
import {
  LeaseLostError,
  StateConflictError,
  StateStore,
} from '../src/platform/state/state-store.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';

// Two gateway instances share one backend: two Nest apps on the same PostgreSQL database, or on
// the same sqlite file (which is how a single replica restarts over its own file).
describe.each(BACKENDS)('StateStore shared by two instances (%s)', (backend) => {
  let fixture: BackendFixture;
  let a: RunningGateway;
  let b: RunningGateway;
  let storeA: StateStore;
  let storeB: StateStore;

  beforeAll(async () => {
    fixture = await createBackend(backend);
    [a, b] = [await startGateway(fixture.env), await startGateway(fixture.env)];
    storeA = a.app.get(StateStore);
    storeB = b.app.get(StateStore);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await fixture?.cleanup();
  });

  it('gives each instance its own lease owner identity', () => {
    expect(storeA.owner).not.toEqual(storeB.owner);
  });

  it('makes a value put by one instance readable by the other at once', async () => {
    const key = { tenantId: 'acme', sessionId: 's1', key: 'checkpoint' };
    const written = await storeA.put(key, { step: 1, messages: ['hi'] });
    expect(written.version).toBe(1);
    const read = await storeB.get(key);
    expect(read).toMatchObject({ ...key, value: { step: 1, messages: ['hi'] }, version: 1 });
  });

  it('replaces an existing triple on a second put and bumps its version', async () => {
    const key = { tenantId: 'acme', sessionId: 's2', key: 'k' };
    await storeA.put(key, 'first');
    const second = await storeB.put(key, 'second');
    expect(second.version).toBe(2);
    expect((await storeA.get(key))?.value).toBe('second');
    expect(await storeA.listKeys('acme', 's2')).toEqual(['k']);
  });

  it('keeps tenants apart for the same session id and key', async () => {
    await storeA.put({ tenantId: 't1', sessionId: 'same', key: 'k' }, 1);
    await storeA.put({ tenantId: 't2', sessionId: 'same', key: 'k' }, 2);
    expect((await storeB.get({ tenantId: 't1', sessionId: 'same', key: 'k' }))?.value).toBe(1);
    expect((await storeB.get({ tenantId: 't2', sessionId: 'same', key: 'k' }))?.value).toBe(2);
  });

  it('lists and deletes the keys of one session', async () => {
    for (const k of ['b', 'a', 'c'])
      await storeA.put({ tenantId: 'acme', sessionId: 's3', key: k }, k);
    expect(await storeB.listKeys('acme', 's3')).toEqual(['a', 'b', 'c']);
    expect(await storeB.delete({ tenantId: 'acme', sessionId: 's3', key: 'b' })).toBe(true);
    expect(await storeB.delete({ tenantId: 'acme', sessionId: 's3', key: 'b' })).toBe(false);
    expect(await storeA.listKeys('acme', 's3')).toEqual(['a', 'c']);
    expect(await storeA.get({ tenantId: 'acme', sessionId: 's3', key: 'b' })).toBeNull();
  });

  it('rejects a stale conditional write instead of overwriting', async () => {
    const key = { tenantId: 'acme', sessionId: 's4', key: 'k' };
    const created = await storeA.put(key, 'v1', { expectedVersion: 0 });
    await expect(storeB.put(key, 'again', { expectedVersion: 0 })).rejects.toBeInstanceOf(
      StateConflictError,
    );
    const updated = await storeB.put(key, 'v2', { expectedVersion: created.version });
    expect(updated.version).toBe(2);
    await expect(
      storeA.put(key, 'stale', { expectedVersion: created.version }),
    ).rejects.toBeInstanceOf(StateConflictError);
    expect((await storeA.get(key))?.value).toBe('v2');
    await expect(
      storeA.put({ tenantId: 'acme', sessionId: 's4', key: 'missing' }, 'x', {
        expectedVersion: 3,
      }),
    ).rejects.toBeInstanceOf(StateConflictError);
  });

  it('lets exactly one claim win per run id under 200 concurrent claims over 20 run ids', async () => {
    const runIds = Array.from({ length: 20 }, (_, i) => `race-${i}`);
    const claims = Array.from({ length: 200 }, (_, i) => {
      const store = i % 2 === 0 ? storeA : storeB;
      return store
        .claimRunLease('acme', runIds[i % 20], 30_000)
        .then((lease) => ({ store, lease }));
    });
    const results = await Promise.all(claims);
    // A re-claim by the owner renews, so count distinct winning owners per run id.
    const winners = new Map<string, Set<string>>();
    for (const { lease } of results) {
      if (!lease) continue;
      const owners = winners.get(lease.runId) ?? new Set<string>();
      owners.add(lease.owner);
      winners.set(lease.runId, owners);
    }
    expect([...winners.keys()].sort()).toEqual([...runIds].sort());
    for (const owners of winners.values()) expect(owners.size).toBe(1);
    const losers = results.filter(({ lease }) => lease === null);
    for (const { store } of losers) {
      expect([storeA.owner, storeB.owner]).toContain(store.owner);
    }
    // Every loser lost to the other instance, never to itself.
    for (const { store, lease } of results) {
      if (lease) expect(lease.owner).toBe(store.owner);
    }
  });

  it('refuses a held lease, renews for its owner, and hands it over after release', async () => {
    const first = await storeA.claimRunLease('acme', 'run-hold', 30_000);
    expect(first?.owner).toBe(storeA.owner);
    expect(await storeB.claimRunLease('acme', 'run-hold', 30_000)).toBeNull();
    expect(await storeB.renewRunLease('acme', 'run-hold', 30_000)).toBe(false);
    expect(await storeA.renewRunLease('acme', 'run-hold', 60_000)).toBe(true);
    const again = await storeA.claimRunLease('acme', 'run-hold', 30_000);
    expect(again?.owner).toBe(storeA.owner);
    expect(await storeB.releaseRunLease('acme', 'run-hold')).toBe(false);
    expect(await storeA.releaseRunLease('acme', 'run-hold')).toBe(true);
    const next = await storeB.claimRunLease('acme', 'run-hold', 30_000);
    expect(next?.owner).toBe(storeB.owner);
  });

  it('hands a run lease over: expired for its owner only, listed for the sweep, claimable at once', async () => {
    expect(await storeA.claimRunLease('acme', 'run:handover', 60_000)).not.toBeNull();
    expect(await storeB.expireRunLease('acme', 'run:handover')).toBe(false);
    expect(await storeB.listExpiredRunLeases(50)).not.toContainEqual({
      tenantId: 'acme',
      key: 'run:handover',
    });
    expect(await storeA.expireRunLease('acme', 'run:handover')).toBe(true);
    expect(await storeB.listExpiredRunLeases(50)).toContainEqual({
      tenantId: 'acme',
      key: 'run:handover',
    });
    expect((await storeB.claimRunLease('acme', 'run:handover', 60_000))?.owner).toBe(storeB.owner);
    expect(await storeB.listExpiredRunLeases(50)).not.toContainEqual({
      tenantId: 'acme',
      key: 'run:handover',
    });
  });

  it('lets another instance take over an expired lease, after which the old owner cannot renew', async () => {
    expect(await storeA.claimRunLease('acme', 'run-expire', 150)).not.toBeNull();
    expect(await storeB.claimRunLease('acme', 'run-expire', 30_000)).toBeNull();
    await sleep(300);
    const takeover = await storeB.claimRunLease('acme', 'run-expire', 30_000);
    expect(takeover?.owner).toBe(storeB.owner);
    expect(await storeA.renewRunLease('acme', 'run-expire', 30_000)).toBe(false);
    expect(await storeA.claimRunLease('acme', 'run-expire', 30_000)).toBeNull();
  });

  it('keeps the same run id of two tenants independent', async () => {
    expect(await storeA.claimRunLease('tenant-a', 'shared-run', 30_000)).not.toBeNull();
    expect(await storeB.claimRunLease('tenant-b', 'shared-run', 30_000)).not.toBeNull();
  });

  /** A run's first record (RunRecordStore.create): written only under the run's lease. */
  const firstRecord = (runId: string) => ({
    key: { tenantId: 'acme', sessionId: `run:${runId}`, key: 'record' },
    options: { expectedVersion: 0, whileHolding: `run:${runId}` },
  });

  it("claims a new run's lease with its first record, in one transaction", async () => {
    const keeperA = a.app.get(LeaseKeeper);
    const { key: record, options } = firstRecord('fresh');
    const { lease, claimed } = keeperA.acquireNew('acme', 'run:fresh')!;
    const written = storeA.put(record, { status: 'running' }, options);
    await Promise.all([claimed, written]);
    expect(lease.signal.aborted).toBe(false);
    expect(await b.app.get(LeaseKeeper).acquire('acme', 'run:fresh')).toBeNull();
    if (fixture.database) {
      // One transaction id on both rows: the lease and the record were committed together.
      const rows = await fixture.database.query<{ tx: string }>(
        `SELECT xmin::text AS tx FROM run_leases WHERE run_id = 'run:fresh'
         UNION ALL SELECT xmin::text FROM state_entries WHERE session_id = 'run:fresh'`,
      );
      expect(rows).toHaveLength(2);
      expect(new Set(rows.map((row) => row.tx)).size).toBe(1);
    }
    await lease.release();
  });

  it('stops the work of a new lease whose key another instance holds after all, and keeps its first record out', async () => {
    // B claimed the run (as a caller's run id is claimed before its record is read) and has
    // not recorded it yet; A's claim and first record go out together.
    const held = await b.app.get(LeaseKeeper).acquire('acme', 'run:taken');
    const { key: record, options } = firstRecord('taken');
    const { lease, claimed } = a.app.get(LeaseKeeper).acquireNew('acme', 'run:taken')!;
    const written = storeA.put(record, { by: 'a' }, options);
    await expect(written).rejects.toBeInstanceOf(StateConflictError);
    await expect(claimed).rejects.toBeInstanceOf(LeaseLostError);
    expect(lease.signal.reason).toBeInstanceOf(LeaseLostError);
    expect(await storeB.get(record)).toBeNull();
    await lease.release(); // gives nothing up: the lease stays the other instance's
    expect(await storeA.claimRunLease('acme', 'run:taken', 30_000)).toBeNull();
    // The holder records the run as it meant to.
    expect((await storeB.put(record, { by: 'b' }, options)).version).toBe(1);
    await held?.release();
  });

  it("writes a run's first record only under its lease, and only once", async () => {
    const { key: record, options } = firstRecord('leased');
    // Nobody holds the lease: no record.
    await expect(storeA.put(record, { by: 'a' }, options)).rejects.toBeInstanceOf(
      StateConflictError,
    );
    const lease = await a.app.get(LeaseKeeper).acquire('acme', 'run:leased');
    await expect(storeB.put(record, { by: 'b' }, options)).rejects.toBeInstanceOf(
      StateConflictError,
    );
    expect((await storeA.put(record, { by: 'a' }, options)).version).toBe(1);
    // A record that exists is not created again, even by the lease's holder.
    await expect(storeA.put(record, { by: 'again' }, options)).rejects.toBeInstanceOf(
      StateConflictError,
    );
    expect((await storeB.get(record))?.value).toEqual({ by: 'a' });
    await lease?.release();
  });
});
