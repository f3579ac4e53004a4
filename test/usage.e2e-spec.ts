import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI, { RateLimitError } from 'openai';
import request from 'supertest';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { BACKENDS } from './support/backends.js';
import { a2aClient, keyedFetch, sendParams, userMessage } from './support/a2a-client.js';
import { ChatServer, SLACK_PATH, messageText, waitUntil } from './support/chat-server.js';
import { writeKeysFile } from './support/keys-file.js';
import { MockModel, type SeenRequest, completion, lastUserText } from './support/mock-model.js';
import { gatewayForSuite } from './support/suite.js';

/**
 * Token usage and budgets (issue 17): every model call's tokens in the ledger and the run
 * record, summed per tenant at GET /v1/usage by day, model and agent; per-tenant budgets that
 * refuse new runs with 429 `budget-exhausted` on every wire once spent.
 */
const ROOT = 'usage-root-key';
const KEYS = {
  acmeViewer: 'usage-acme-viewer-key',
  acmeAdmin: 'usage-acme-admin-key',
  operator: 'usage-operator-key',
  runner: 'usage-runner-key',
};
const keysFile = writeKeysFile({
  keys: [
    { id: 'acme-viewer', key: KEYS.acmeViewer, tenant_id: 'acme', roles: ['viewer'] },
    { id: 'acme-admin', key: KEYS.acmeAdmin, tenant_id: 'acme', roles: ['admin'] },
    { id: 'ops', key: KEYS.operator, roles: ['operator'] },
    { id: 'ci', key: KEYS.runner, roles: ['runner'] },
  ],
});
const asRoot = { Authorization: `Bearer ${ROOT}` };
const as = (key: string) => ({ Authorization: `Bearer ${key}` });

/** What the mock model reports per call, by the model the call asks for. */
const REPORTED: Record<string, { prompt_tokens: number; completion_tokens: number }> = {
  'model-a': { prompt_tokens: 100, completion_tokens: 20 },
  'model-b': { prompt_tokens: 7, completion_tokens: 3 },
  'test-model': { prompt_tokens: 10, completion_tokens: 5 },
};

/** `calc` makes the model call the calculator once before it answers; the rest is answered. */
function script(req: SeenRequest) {
  const model = String(req.body.model);
  const reported = REPORTED[model] ?? { prompt_tokens: 1, completion_tokens: 1 };
  const usage = {
    ...reported,
    total_tokens: reported.prompt_tokens + reported.completion_tokens,
  };
  const messages = (req.body.messages ?? []) as Array<{ role: string }>;
  const asks = lastUserText(req).startsWith('calc') && !messages.some((m) => m.role === 'tool');
  const body = asks
    ? completion(null, [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"6*7"}' }])
    : completion(`answer from ${model}`);
  return { body: { ...body, model, usage } };
}

const today = () => new Date().toISOString().slice(0, 10);

const sums = (prompt: number, completion: number, calls: number, runs: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  calls,
  runs,
});

describe.each(BACKENDS)('token usage and budgets (%s)', (backend) => {
  const model = new MockModel();
  const chat = new ChatServer();
  beforeAll(async () => {
    await model.start();
    model.reset(script);
    await chat.start();
  });
  afterAll(async () => {
    await model.close();
    await chat.close();
  });
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: ROOT,
    SVC_KEYS_FILE: keysFile,
    SVC_PROVIDER_URL: `${model.url}/v1`,
    SVC_MODEL: 'test-model',
    SVC_CHATA_WEBHOOK: chat.slackUrl,
    SVC_OUTBOX_POLL_MS: '50',
  }));
  const http = () => request(gateway.url);
  const run = (tenant: string, body: Record<string, unknown> = {}) =>
    http()
      .post('/v1/agent/run')
      .set(asRoot)
      .send({ tenant_id: tenant, prompt: 'hi', ...body });
  const usage = (tenant: string, key = ROOT, range = `&from=${today()}&to=${today()}`) =>
    http().get(`/v1/usage?tenant_id=${tenant}${range}`).set(as(key));

  it('sums what the provider reported by day, model and agent, and keeps it per model in the run', async () => {
    const day = today();
    await http()
      .put('/v1/agents/helper')
      .set(asRoot)
      .send({
        tenant_id: 'acme',
        topology: 'pipeline',
        steps: [{ id: 'ask', kind: 'agent', prompt: 'summarise {{input}}' }],
      })
      .expect(200);
    // Two calls of model-a (a tool turn, then the answer), one of each other, one graph step.
    const calc = await run('acme', { model: 'model-a', prompt: 'calc 6*7' }).expect(200);
    await run('acme', { model: 'model-a' }).expect(200);
    await run('acme', { model: 'model-b' }).expect(200);
    await run('acme', { agent: 'helper', model: 'model-b', prompt: 'order 7' }).expect(200);

    expect(calc.body).toMatchObject({ turns: 2, tool_calls: 1 });
    const record = await http()
      .get(`/v1/runs/${calc.body.run_id}?tenant_id=acme`)
      .set(asRoot)
      .expect(200);
    expect((record.body as RunRecord).usage).toEqual({
      prompt_tokens: 200,
      completion_tokens: 40,
      total_tokens: 240,
      by_model: { 'model-a': { prompt_tokens: 200, completion_tokens: 40, calls: 2 } },
    });

    const report = await usage('acme', ROOT, `&from=${day}&to=${today()}`).expect(200);
    expect(report.body).toMatchObject({
      tenant_id: 'acme',
      from: day,
      to: today(),
      totals: sums(314, 66, 5, 4),
      by_model: [
        { model: 'model-a', ...sums(300, 60, 3, 2) },
        { model: 'model-b', ...sums(14, 6, 2, 2) },
      ],
      by_agent: [
        { agent: 'default', ...sums(307, 63, 4, 3) },
        { agent: 'helper', ...sums(7, 3, 1, 1) },
      ],
      truncated: false,
    });
    // The days add up to the totals (one day, unless the test ran across UTC midnight).
    const days = report.body.by_day as Array<{ day: string; total_tokens: number }>;
    expect(days.reduce((sum, entry) => sum + entry.total_tokens, 0)).toBe(380);
    expect(days[0].day).toBe(day);
    // Without a range: the current month up to today.
    const month = await http().get('/v1/usage?tenant_id=acme').set(asRoot).expect(200);
    expect(month.body.from).toBe(`${today().slice(0, 7)}-01`);
    expect(month.body.to).toBe(today());
  });

  it('refuses a new run once the daily budget is spent: 429 naming the budget, on every wire', async () => {
    const set = await http()
      .put('/v1/budgets/bud')
      .set(asRoot)
      .send({ daily_tokens: 150 })
      .expect(200);
    expect(set.body).toMatchObject({
      tenant_id: 'bud',
      daily: { budget: 'daily', limit: 150, source: 'tenant', used: 0, remaining: 150 },
      monthly: { budget: 'monthly', limit: null, source: 'default', remaining: null },
      updated_by: 'root',
    });
    const first = await run('bud', { model: 'model-a', run_id: 'bud-1' }).expect(200);
    // Under the limit when it started, so it runs: a run in flight is never cut off.
    await run('bud', { model: 'model-a' }).expect(200);

    const refused = await run('bud', { model: 'model-a' }).expect(429);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    const resetsAt = new Date(`${today()}T00:00:00.000Z`).getTime() + 86_400_000;
    expect(refused.body).toMatchObject({
      type: 'urn:svc:problem:budget-exhausted',
      status: 429,
      budget: 'daily',
      limit: 150,
      used: 240,
      resets_at: new Date(resetsAt).toISOString(),
    });
    expect(refused.body.detail).toContain('daily token budget');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(retryAfter - (resetsAt - Date.now()) / 1000)).toBeLessThan(60);

    // A streamed run is refused before its stream starts.
    const streamed = await run('bud', { stream: true }).expect(429);
    expect(streamed.body.type).toBe('urn:svc:problem:budget-exhausted');

    // The OpenAI wire, read by the official client: its quota error, with the budget.
    const openai = new OpenAI({
      apiKey: ROOT,
      baseURL: `${gateway.url}/v1`,
      defaultHeaders: { 'X-Tenant-Id': 'bud' },
      maxRetries: 0,
    });
    const error = await openai.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    const quota = error as RateLimitError;
    expect(quota.status).toBe(429);
    expect(Math.abs(Number(quota.headers.get('retry-after')) - retryAfter)).toBeLessThan(5);
    expect(quota.error).toMatchObject({
      type: 'insufficient_quota',
      code: 'budget_exhausted',
      budget: 'daily',
      limit: 150,
      used: 240,
    });

    const streamError = await openai.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((caught: unknown) => caught);
    expect(streamError).toBeInstanceOf(RateLimitError);

    // A2A, read by the official client: a JSON-RPC error whose ErrorInfo names the budget.
    const a2a = await a2aClient(gateway.url, 'default', keyedFetch(ROOT, { 'X-Tenant-Id': 'bud' }));
    const rpc = await a2a
      .sendMessage(sendParams(userMessage('hi')))
      .catch((caught: unknown) => caught);
    expect((rpc as Error).message).toContain('daily token budget');
    expect((rpc as { data?: unknown }).data).toEqual([
      expect.objectContaining({
        reason: 'RESOURCE_EXHAUSTED',
        metadata: { budget: 'daily', limit: '150', used: '240', resets_at: refused.body.resets_at },
      }),
    ]);

    // MCP's (and REST's) run_agent: a tool error the calling model or person can read.
    const tool = await http()
      .post('/v1/tools/agents/run_agent')
      .set(asRoot)
      .send({ tenant_id: 'bud', arguments: { prompt: 'hi' } })
      .expect(200);
    expect(tool.body).toMatchObject({ is_error: true });
    expect(JSON.stringify(tool.body.result)).toContain('daily token budget');

    // A chat message is answered with a short note instead of a run; the event is kept.
    await http()
      .post('/v1/messaging/webhook')
      .set(asRoot)
      .send({
        tenant_id: 'bud',
        channel: 'chata',
        conversation_id: 'room-1',
        user: 'bob',
        text: 'hello?',
        event_id: `bud-evt-${backend}`,
      })
      .expect(200);
    await waitUntil(
      () =>
        chat
          .received(SLACK_PATH)
          .some((call) => messageText(call.body)?.includes('daily token budget is used up')),
      'the chat gets the budget note',
    );

    // A settled run asked again answers as it ended; another tenant runs as before.
    const again = await run('bud', { model: 'model-a', run_id: 'bud-1' }).expect(200);
    expect(again.body.text).toBe(first.body.text);
    await run('free', { model: 'model-a' }).expect(200);

    // Refused runs spent nothing and are not counted.
    expect((await usage('bud').expect(200)).body.totals).toEqual(sums(200, 40, 2, 2));
    const status = await http().get('/v1/budgets/bud').set(asRoot).expect(200);
    expect(status.body.daily).toMatchObject({ limit: 150, used: 240, remaining: 0 });

    // Raising the budget lets runs through at once; removing it returns to the defaults (none).
    await http().put('/v1/budgets/bud').set(asRoot).send({ daily_tokens: 100_000 }).expect(200);
    await run('bud', { model: 'model-b' }).expect(200);
    await http().put('/v1/budgets/bud').set(asRoot).send({ daily_tokens: 0 }).expect(200);
    await run('bud').expect(429);
    await http().delete('/v1/budgets/bud').set(asRoot).expect(204);
    await run('bud').expect(200);
    const cleared = await http().get('/v1/budgets/bud').set(asRoot).expect(200);
    expect(cleared.body).toMatchObject({
      daily: { limit: null, source: 'default' },
      updated_at: null,
    });
    await http().delete('/v1/budgets/bud').set(asRoot).expect(404);

    const audit = await http()
      .get('/v1/audit?tenant_id=bud&kind=budget.updated')
      .set(asRoot)
      .expect(200);
    expect(audit.body.events[0]).toMatchObject({
      kind: 'budget.updated',
      actor: 'root',
      details: { daily_tokens: 0 },
    });
  });

  it('keeps each tenant to its own usage and budget; only an unbound key changes a budget', async () => {
    await run('acme').expect(200);
    await run('other').expect(200);
    // A viewer of acme reads acme's usage and budget, nothing of another tenant.
    await usage('acme', KEYS.acmeViewer).expect(200);
    await usage('other', KEYS.acmeViewer).expect(403);
    await http().get('/v1/budgets/acme').set(as(KEYS.acmeViewer)).expect(200);
    await http().get('/v1/budgets/other').set(as(KEYS.acmeViewer)).expect(403);
    await http()
      .get('/v1/usage?tenant_id=acme')
      .set({ ...as(KEYS.acmeViewer), 'X-Tenant-Id': 'other' })
      .expect(403);
    // Not even acme's own admin key lifts acme's budget.
    const bound = await http()
      .put('/v1/budgets/acme')
      .set(as(KEYS.acmeAdmin))
      .send({ daily_tokens: null })
      .expect(403);
    expect(bound.body.detail).toContain('not bound to a tenant');
    await http().delete('/v1/budgets/acme').set(as(KEYS.acmeAdmin)).expect(403);
    // An operator reads usage but sets no budget; a runner reads neither.
    await usage('other', KEYS.operator).expect(200);
    await http()
      .put('/v1/budgets/other')
      .set(as(KEYS.operator))
      .send({ daily_tokens: 1 })
      .expect(403);
    await usage('acme', KEYS.runner).expect(403);
    await http().get('/v1/usage?tenant_id=acme').expect(401);
    const other = (await usage('other').expect(200)).body;
    expect(other.totals.runs).toBe(1);
    expect(other.by_agent).toEqual([{ agent: 'default', ...sums(10, 5, 1, 1) }]);
  });

  it('answers bad dates and bad budgets with 400 problems', async () => {
    const bad = async (query: string, path: string) => {
      const res = await http().get(`/v1/usage?${query}`).set(asRoot).expect(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.body.errors[0].path).toBe(path);
    };
    await bad('from=2026-01-01', 'tenant_id');
    await bad('tenant_id=acme&from=2026-02-30', 'from');
    await bad('tenant_id=acme&to=yesterday', 'to');
    await bad('tenant_id=acme&from=2026-11-24&to=2026-11-01', 'from');
    await bad('tenant_id=acme&from=2024-01-01&to=2025-12-31', 'from');
    await bad('tenant_id=acme&from=2026-01-01&from=2026-01-02', 'from');

    const put = (body: unknown) =>
      http()
        .put('/v1/budgets/acme')
        .set(asRoot)
        .send(body as object)
        .expect(400);
    expect((await put({})).body.detail).toContain('daily_tokens or monthly_tokens');
    for (const value of [-1, 1.5, '100', true, 1e16]) {
      const res = await put({ daily_tokens: value });
      expect(res.body.errors[0]).toMatchObject({ path: 'daily_tokens' });
    }
    expect((await put({ weekly_tokens: 5 })).body.errors[0].path).toBe('weekly_tokens');
    await http()
      .get(`/v1/budgets/${'x'.repeat(200)}`)
      .set(asRoot)
      .expect(400);
  });

  it('shows gen_ai.client.token.usage on /metrics, per token type and model', async () => {
    await run('acme', { model: 'model-b' }).expect(200);
    const text = (await http().get('/metrics').set(asRoot).expect(200)).text;
    const series = (type: string) =>
      text
        .split('\n')
        .find(
          (line) =>
            line.startsWith('gen_ai_client_token_usage_sum{') &&
            line.includes(`gen_ai_token_type="${type}"`) &&
            line.includes('gen_ai_request_model="model-b"'),
        );
    expect(series('input')).toContain('gen_ai_operation_name="chat"');
    expect(series('input')).toContain('gen_ai_provider_name="openai"');
    expect(Number(series('input')?.split(' ').at(-1))).toBeGreaterThanOrEqual(7);
    expect(Number(series('output')?.split(' ').at(-1))).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/gen_ai_client_token_usage_bucket\{[^}]*le="16"/);
  });
});

describe.each(BACKENDS)('token usage of the offline echo provider (%s)', (backend) => {
  // Every tenant's default: 20 tokens a month (the first two runs below spend more).
  const gateway = gatewayForSuite(backend, { SVC_API_KEY: ROOT, SVC_TOKEN_BUDGET_MONTHLY: '20' });

  it('counts the estimated tokens of every call, in the runs and in the ledger', async () => {
    const runEcho = async (prompt: string) =>
      (
        await request(gateway.url)
          .post('/v1/agent/run')
          .set(asRoot)
          .send({ tenant_id: 'acme', prompt })
          .expect(200)
      ).body as RunRecord;
    // One after the other: the second starts while the tenant is still under its budget.
    const plain = await runEcho('hello there');
    const tool = await runEcho('/tool calculator {"expression":"2*(3+4)"}');
    // About four characters a token: the prompt is 11 characters, its echo as long.
    expect(plain.usage).toEqual({
      prompt_tokens: 3,
      completion_tokens: 4,
      total_tokens: 7,
      by_model: { default: { prompt_tokens: 3, completion_tokens: 4, calls: 1 } },
    });
    expect(tool.usage?.by_model?.default.calls).toBe(2);
    const report = await request(gateway.url)
      .get(`/v1/usage?tenant_id=acme`)
      .set(asRoot)
      .expect(200);
    const prompt = plain.usage!.prompt_tokens + tool.usage!.prompt_tokens;
    const completion = plain.usage!.completion_tokens + tool.usage!.completion_tokens;
    expect(report.body.totals).toEqual(sums(prompt, completion, 3, 2));
    expect(report.body.by_model).toEqual([{ model: 'default', ...sums(prompt, completion, 3, 2) }]);
  });

  it('applies the default budget to every tenant that has none of its own', async () => {
    const refused = await request(gateway.url)
      .post('/v1/agent/run')
      .set(asRoot)
      .send({ tenant_id: 'acme', prompt: 'more' })
      .expect(429);
    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    expect(refused.body).toMatchObject({
      type: 'urn:svc:problem:budget-exhausted',
      budget: 'monthly',
      limit: 20,
      resets_at: nextMonth.toISOString(),
    });
    const budget = await request(gateway.url).get('/v1/budgets/acme').set(asRoot).expect(200);
    expect(budget.body.monthly).toMatchObject({ limit: 20, source: 'default', remaining: 0 });
    expect(budget.body.daily).toMatchObject({ limit: null, source: 'default' });
    // Another tenant has spent nothing yet; one with a budget of its own is not held to it.
    await request(gateway.url)
      .post('/v1/agent/run')
      .set(asRoot)
      .send({ tenant_id: 'beta', prompt: 'hi' })
      .expect(200);
    await request(gateway.url)
      .put('/v1/budgets/acme')
      .set(asRoot)
      .send({ monthly_tokens: null })
      .expect(200);
    await request(gateway.url)
      .post('/v1/agent/run')
      .set(asRoot)
      .send({ tenant_id: 'acme', prompt: 'more' })
      .expect(200);
  });
});
