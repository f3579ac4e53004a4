import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OutboxWorker } from '../src/messaging/outbox-worker.service.js';
import { OutboxStore } from '../src/messaging/outbox.store.js';
import { waitUntil } from './support/chat-server.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { outboxEntry } from './support/outbox-entries.js';

// A pending entry is claimed for one delivery attempt by one conditional statement; the
// gateway's own worker is stopped here, so only the test's claims race.
describe.each(BACKENDS)('outbox delivery claims (%s)', (backend) => {
  let fixture: BackendFixture;
  let gateway: RunningGateway;
  let outbox: OutboxStore;
  let n = 0;

  beforeAll(async () => {
    fixture = await createBackend(backend);
    gateway = await startGateway(fixture.env);
    await gateway.app.get(OutboxWorker).beforeApplicationShutdown();
    outbox = gateway.app.get(OutboxStore);
  });
  afterAll(async () => {
    await gateway?.close();
    await fixture?.cleanup();
  });

  /** A new entry with its reply stored, due at once or claimed for `claimMs`. */
  const replied = async (claimMs?: number) => {
    const id = `claim-${++n}`;
    expect(await outbox.accept(outboxEntry(id), 60_000)).toBe(true);
    const entry = await outbox.setReply('acme', id, 'hi', { claimMs });
    expect(entry).toMatchObject({ status: 'pending', attempts: 0 });
    return entry!;
  };
  const isDue = async (id: string) => (await outbox.due(1000)).some((e) => e.id === id);

  it('gives a due entry to one of two claims at once, and is not due while claimed', async () => {
    const entry = await replied();
    expect(await isDue(entry.id)).toBe(true);
    const claims = await Promise.all([
      outbox.claim('acme', entry.id, 0, 60_000),
      outbox.claim('acme', entry.id, 0, 60_000),
    ]);
    expect(claims.filter((claim) => claim !== null)).toHaveLength(1);
    expect(await isDue(entry.id)).toBe(false);
    expect(await outbox.claim('acme', entry.id, 0, 60_000)).toBeNull();
  });

  it('claims a reply as it is stored, for its producer', async () => {
    const entry = await replied(60_000);
    expect(await isDue(entry.id)).toBe(false);
    expect(await outbox.claim('acme', entry.id, 0, 60_000)).toBeNull();
    // The producer's attempt is recorded on the claimed entry.
    expect(await outbox.recordAttempt('acme', entry.id, 0, { kind: 'delivered' })).toBe(true);
    expect(await outbox.get('acme', entry.id)).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('refuses a claim on an entry attempted since it was seen, or not pending', async () => {
    const entry = await replied();
    expect(
      await outbox.recordAttempt('acme', entry.id, 0, { kind: 'retry', delayMs: 0, error: 'e' }),
    ).toBe(true);
    // Seen at 0 attempts; another replica made one meanwhile.
    expect(await outbox.claim('acme', entry.id, 0, 60_000)).toBeNull();
    expect(await outbox.claim('acme', entry.id, 1, 60_000)).toMatchObject({ attempts: 1 });
    expect(await outbox.recordAttempt('acme', entry.id, 1, { kind: 'delivered' })).toBe(true);
    expect(await outbox.claim('acme', entry.id, 2, 0)).toBeNull();
  });

  it('lets a claim that ended be taken again', async () => {
    const entry = await replied(1);
    await waitUntil(() => isDue(entry.id), 'the claim ended');
    expect(await outbox.claim('acme', entry.id, 0, 60_000)).not.toBeNull();
  });
});
