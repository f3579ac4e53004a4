import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sessionScope } from '../src/platform/state/state-scopes.js';
import { StateStore } from '../src/platform/state/state-store.js';
import { RunEventStore } from '../src/runs/events/run-event.store.js';
import { ConversationStore } from '../src/sessions/conversation.store.js';
import { BACKENDS } from './support/backends.js';
import { MockModel, completion } from './support/mock-model.js';
import { gatewayForSuite } from './support/suite.js';

const KEY = 'run-last-turn-root-key';
const auth = { Authorization: `Bearer ${KEY}` };

// A plain run's last turn goes into its session in the same transaction as its settled record:
// both are written, or neither is (a session another run changed meanwhile fails the run).
describe.each(BACKENDS)("a plain run's last turn and its settled record (%s)", (backend) => {
  const model = new MockModel();
  beforeAll(() => model.start());
  afterAll(() => model.close());
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: KEY,
    SVC_PROVIDER_URL: `${model.url}/v1`,
  }));
  const run = (tenant: string, body: Record<string, unknown>) =>
    request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: tenant, ...body });
  const usage = async (tenant: string) =>
    (await request(gateway.url).get(`/v1/usage?tenant_id=${tenant}`).set(auth).expect(200)).body
      .totals as { calls: number; runs: number; total_tokens: number };
  const eventTypes = async (tenant: string, runId: string) =>
    (await gateway.app.get(RunEventStore).after(tenant, runId, 0, 100)).map((event) => [
      event.type,
      (event.data.run as { status?: string } | undefined)?.status,
    ]);

  it('writes the session, the settled record and the call it spent together', async () => {
    model.reset(() => ({ body: completion('answer') }));
    const res = await run('last-turn-a', { session_id: 'kept', prompt: 'hello' }).expect(200);
    expect(res.body).toMatchObject({ status: 'completed', text: 'answer', turns: 1 });
    const session = await gateway.app.get(ConversationStore).load('last-turn-a', 'kept');
    expect(session.messages.map((message) => message.content)).toEqual(['hello', 'answer']);
    expect(session.run).toMatchObject({ id: res.body.run_id, turns: 1, finish: 'stop' });
    expect(await usage('last-turn-a')).toMatchObject({ calls: 1, runs: 1, total_tokens: 15 });
    expect(await eventTypes('last-turn-a', res.body.run_id as string)).toEqual([
      ['run.started', 'running'],
      ['run.progressed', undefined],
      ['run.settled', 'completed'],
    ]);
    const database = gateway.fixture.database;
    if (database) {
      // One transaction: PostgreSQL stamps every row it wrote with the same xmin.
      const stamps = await database.query<{ xmin: string }>(
        `SELECT xmin::text FROM state_entries WHERE tenant_id = 'last-turn-a'
           AND ((session_id = $1 AND "key" = 'conversation') OR (session_id = $2 AND "key" = 'record'))
         UNION ALL SELECT xmin::text FROM token_usage WHERE tenant_id = 'last-turn-a'`,
        [sessionScope('kept'), `run:${res.body.run_id as string}`],
      );
      expect(stamps).toHaveLength(3);
      expect(new Set(stamps.map((row) => row.xmin)).size).toBe(1);
    }
  });

  it('fails the run, and writes nothing of its last turn, when another run changed the session meanwhile', async () => {
    const tenant = 'last-turn-b';
    model.reset(() => ({ body: completion('first answer') }));
    await run(tenant, { session_id: 'shared', prompt: 'first' }).expect(200);
    const conversations = gateway.app.get(ConversationStore);
    const before = await conversations.load(tenant, 'shared');

    // The model answers slowly; meanwhile the session is written by someone else.
    model.reset(() => ({ body: completion('late answer'), delayMs: 300 }));
    const pending = run(tenant, { session_id: 'shared', run_id: 'late', prompt: 'second' });
    const answered = pending.then((res) => res);
    for (let i = 0; i < 200 && model.requests.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(model.requests).toHaveLength(1);
    const written = await gateway.app
      .get(StateStore)
      .put(
        { tenantId: tenant, sessionId: sessionScope('shared'), key: 'conversation' },
        { messages: [{ role: 'user', content: 'written elsewhere' }] },
      );
    expect(written.version).toBe(before.version + 1);

    const res = await answered;
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ type: 'urn:svc:problem:session-conflict', status: 409 });
    const record = await request(gateway.url)
      .get(`/v1/runs/late?tenant_id=${tenant}`)
      .set(auth)
      .expect(200);
    expect(record.body).toMatchObject({
      status: 'failed',
      error: { type: 'urn:svc:problem:session-conflict' },
    });
    // The other writer's session stands, and the run's log never said it completed.
    const after = await conversations.load(tenant, 'shared');
    expect(after.version).toBe(written.version);
    expect(after.messages.map((message) => message.content)).toEqual(['written elsewhere']);
    expect(await eventTypes(tenant, 'late')).toEqual([
      ['run.started', 'running'],
      ['run.progressed', undefined],
      ['run.settled', 'failed'],
    ]);
    // The model call was made and billed: it is in the ledger all the same.
    expect(await usage(tenant)).toMatchObject({ calls: 2, runs: 2, total_tokens: 30 });
  });
});
