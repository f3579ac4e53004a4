import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { StateStore } from '../src/platform/state/state-store.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { startGateway } from './support/gateway.js';

describe.each(BACKENDS)('graceful shutdown (%s)', (backend) => {
  let fixture: BackendFixture;

  beforeAll(async () => {
    fixture = await createBackend(backend);
  });
  afterAll(async () => fixture?.cleanup());

  it('releases the leases an instance holds when it closes, so another claims them at once and finds unfinished runs', async () => {
    const leaving = await startGateway(fixture.env);
    const staying = await startGateway(fixture.env);
    const store = leaving.app.get(StateStore);
    await store.claimRunLease('acme', 'held-1', 60_000);
    await store.claimRunLease('acme', 'held-2', 60_000);
    await store.claimRunLease('acme', 'run:unfinished', 60_000);
    const other = staying.app.get(StateStore);
    expect(await other.claimRunLease('acme', 'held-1', 60_000)).toBeNull();

    await leaving.close();

    expect((await other.claimRunLease('acme', 'held-1', 60_000))?.owner).toBe(other.owner);
    expect((await other.claimRunLease('acme', 'held-2', 60_000))?.owner).toBe(other.owner);
    // A run lease is left expired rather than deleted, so a replica's sweep finds the run.
    expect(await other.listExpiredRunLeases(10)).toEqual([
      { tenantId: 'acme', key: 'run:unfinished' },
    ]);
    await staying.close();
  });
});
