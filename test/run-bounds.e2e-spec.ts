import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import request from 'supertest';
import type { ChatMessage } from '../src/providers/chat.types.js';
import { BACKENDS, type BackendFixture } from './support/backends.js';
import { expectValidHistory } from './support/chat-history.js';
import { waitUntil } from './support/chat-server.js';
import { type CountingEndpoint, startCountingEndpoint } from './support/counting-endpoint.js';
import { MockModel, type SeenRequest, completion } from './support/mock-model.js';
import { gatewayForSuite } from './support/suite.js';
import { registerRouteTool } from './support/tool-endpoint.js';

const KEY = 'run-bounds-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';
const PER_TURN = 12;
const PER_RUN = 20;
const SESSION_MAX = 64 * 1024;
const RESULT_MAX = 8 * 1024;

/** `count` tool calls of one model answer. */
const callsTo = (name: string, count: number, args = '{}') =>
  completion(
    null,
    Array.from({ length: count }, (_, i) => ({ id: `call_${i}`, name, arguments: args })),
  );

const lastRole = (req: SeenRequest) =>
  (req.body.messages as ChatMessage[] | undefined)?.at(-1)?.role;

/** The bytes of a session's conversation as the state backend holds them. */
async function storedBytes(fixture: BackendFixture, session: string): Promise<number> {
  const params = [TENANT, `session:${session}`];
  if (fixture.database) {
    const rows = await fixture.database.query<{ value: string }>(
      `SELECT value FROM state_entries WHERE tenant_id = $1 AND session_id = $2 AND "key" = 'conversation'`,
      params,
    );
    return Buffer.byteLength(rows[0].value);
  }
  const db = new Database(fixture.env.SVC_STATE_SQLITE, { readonly: true });
  try {
    const row = db
      .prepare(
        `SELECT value FROM state_entries WHERE tenant_id = ? AND session_id = ? AND "key" = 'conversation'`,
      )
      .get(...params) as { value: string };
    return Buffer.byteLength(row.value);
  } finally {
    db.close();
  }
}

describe.each(BACKENDS)('bounded fan-out and session size (%s)', (backend) => {
  const model = new MockModel();
  let endpoint: CountingEndpoint;
  beforeAll(async () => {
    await model.start();
    endpoint = await startCountingEndpoint();
  });
  afterAll(async () => {
    await model.close();
    await endpoint.close();
  });
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: KEY,
    SVC_PROVIDER_URL: `${model.url}/v1`,
    SVC_MAX_TOOL_CALLS_PER_TURN: String(PER_TURN),
    SVC_MAX_TOOL_CALLS_PER_RUN: String(PER_RUN),
    SVC_SESSION_MAX_BYTES: String(SESSION_MAX),
    SVC_TOOL_RESULT_MAX_BYTES: String(RESULT_MAX),
  }));
  beforeAll(async () => {
    const register = (name: string, route: string) =>
      registerRouteTool(endpoint, gateway.url, auth, { tenant: TENANT, name, route });
    await register('count', '/count');
    await register('hold', '/hold');
    await register('big', '/bytes/100000');
  });
  const run = (body: Record<string, unknown>) =>
    request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, toolset: 'ops', ...body });

  it('fails a run whose model asks for 5,000 tool calls at once, and runs none of them', async () => {
    endpoint.received.length = 0;
    model.reset(() => ({ body: callsTo('count', 5000) }));
    const runId = `${backend}-fan-out`;
    const res = await run({ run_id: runId, prompt: 'go wide' }).expect(502);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      type: 'urn:svc:problem:too-many-tool-calls',
      status: 502,
    });
    expect(res.body.detail).toMatch(
      /asked for 5000 tool calls in one answer; at most 12 .*SVC_MAX_TOOL_CALLS_PER_TURN.*none of them ran/,
    );
    expect(endpoint.received).toHaveLength(0);
    const stored = await request(gateway.url)
      .get(`/v1/runs/${runId}?tenant_id=${TENANT}`)
      .set(auth)
      .expect(200);
    expect(stored.body).toMatchObject({
      status: 'failed',
      finish_reason: 'error',
      error: { status: 502, type: 'urn:svc:problem:too-many-tool-calls', detail: res.body.detail },
    });
    // Repeating the run id replays the failure without asking the model again.
    await run({ run_id: runId, prompt: 'go wide' }).expect(502);
    expect(model.requests).toHaveLength(1);
  });

  it('fails a run at the per-run bound across turns; no call beyond it is made', async () => {
    endpoint.received.length = 0;
    model.reset(() => ({ body: callsTo('count', 8) }));
    const res = await run({ prompt: 'keep going', max_turns: 10 }).expect(502);
    expect(res.body.type).toBe('urn:svc:problem:too-many-tool-calls');
    expect(res.body.detail).toMatch(
      /8 more tool calls after 16; at most 20 .*SVC_MAX_TOOL_CALLS_PER_RUN/,
    );
    expect(endpoint.received).toHaveLength(16);
    expect(model.requests).toHaveLength(3);
  });

  it('runs the calls of one turn at most 8 at a time', async () => {
    endpoint.received.length = 0;
    model.reset((req) =>
      lastRole(req) === 'tool' ? { body: completion('all done') } : { body: callsTo('hold', 12) },
    );
    const pending = run({ prompt: 'twelve slow ones' }).then((res) => res);
    await waitUntil(() => endpoint.held() === 8, '8 calls are waiting');
    // Give a ninth call every chance to arrive: it must not.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(endpoint.received).toHaveLength(8);
    endpoint.release(1);
    await waitUntil(() => endpoint.received.length === 9, 'a ninth call took the free slot');
    while (endpoint.received.length < 12 || endpoint.held() > 0) {
      await waitUntil(() => endpoint.held() > 0, 'a call is waiting');
      endpoint.release(1);
    }
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ text: 'all done', tool_calls: 12 });
    expect(endpoint.mostHeld()).toBe(8);
  });

  it('keeps a growing session under its bound in the state backend, and usable', async () => {
    const session = `${backend}-growing`;
    model.reset((req) =>
      lastRole(req) === 'tool'
        ? { body: completion(`answer ${model.requests.length}`) }
        : { body: callsTo('big', 1) },
    );
    for (let i = 0; i < 24; i++) {
      const res = await run({ session_id: session, prompt: `question ${i}` }).expect(200);
      expect(res.body.status).toBe('completed');
      expect(await storedBytes(gateway.fixture, session)).toBeLessThanOrEqual(SESSION_MAX);
    }
    // The model was fed each 100 kB result cut to the bound, and told so.
    const fed = (model.requests.at(-1)?.body.messages ?? []) as ChatMessage[];
    const result = fed.findLast((message) => message.role === 'tool');
    expect(Buffer.byteLength(result?.content ?? '')).toBeLessThanOrEqual(RESULT_MAX);
    expect(result?.content).toMatch(/\[svc: tool result truncated: \d+ bytes/);
    // …and that older history was dropped, in whole exchanges.
    expect(fed[0]).toMatchObject({ role: 'system' });
    expect(fed[0].content).toMatch(/oldest messages of this conversation were dropped/);
    expect(fed[1].role).toBe('user');
    expectValidHistory(fed.slice(1));

    const view = await request(gateway.url)
      .get(`/v1/sessions/${session}?tenant_id=${TENANT}`)
      .set(auth)
      .expect(200);
    const kept = view.body as { trimmed_messages: number; messages: ChatMessage[] };
    expect(kept.trimmed_messages).toBeGreaterThan(0);
    expect(kept.trimmed_messages % 4).toBe(0);
    expect(kept.messages[0].role).toBe('user');
    expectValidHistory(kept.messages);
    expect(kept.messages.at(-1)).toMatchObject({ role: 'assistant' });

    // Still usable: the next run continues it.
    const next = await run({ session_id: session, prompt: 'one more' }).expect(200);
    expect(next.body.status).toBe('completed');
    expect(await storedBytes(gateway.fixture, session)).toBeLessThanOrEqual(SESSION_MAX);
  });

  it("leaves a run's own tool results out of the session when the run alone outgrows it", async () => {
    const session = `${backend}-one-big-turn`;
    model.reset((req) =>
      lastRole(req) === 'tool'
        ? { body: completion('read them all') }
        : { body: callsTo('big', 12) },
    );
    const res = await run({ session_id: session, prompt: 'fetch twelve pages' }).expect(200);
    expect(res.body).toMatchObject({ status: 'completed', tool_calls: 12 });
    expect(await storedBytes(gateway.fixture, session)).toBeLessThanOrEqual(SESSION_MAX);
    const results = (res.body.messages as ChatMessage[]).filter((m) => m.role === 'tool');
    expect(results).toHaveLength(12);
    expect(results[0].content).toMatch(/^\[svc: this tool result \(\d+ bytes\) was left out/);
    expect(results.at(-1)?.content).toMatch(/tool result truncated/);
    // The model itself saw every result during the run.
    const fed = (model.requests.at(-1)?.body.messages ?? []) as ChatMessage[];
    expect(fed.filter((m) => m.role === 'tool' && /^\{"pad"/.test(m.content))).toHaveLength(12);
  });

  it('refuses, before calling the model, an input the session cannot hold', async () => {
    model.reset(() => ({ body: completion('unreachable') }));
    const res = await run({ prompt: 'x'.repeat(SESSION_MAX) }).expect(413);
    expect(res.body).toMatchObject({ type: 'urn:svc:problem:session-too-large', status: 413 });
    expect(res.body.detail).toMatch(/SVC_SESSION_MAX_BYTES/);
    expect(model.requests).toHaveLength(0);
  });
});
