import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { MockModel, completion, lastUserText } from './support/mock-model.js';
import { gatewayForSuite } from './support/suite.js';

const KEY = 'agent-openai-test-key';
const UPSTREAM_KEY = 'sk-upstream-secret';
const auth = { Authorization: `Bearer ${KEY}` };

interface WireMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
}

/** A tool endpoint on loopback that records the JSON body of every call and answers `reply`. */
async function recordingTool(reply: string) {
  const seen: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { seen, url, close: () => server.close() };
}

describe.each(BACKENDS)('agent runs against an OpenAI-compatible model (%s)', (backend) => {
  const model = new MockModel();
  beforeAll(() => model.start());
  afterAll(() => model.close());
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: KEY,
    SVC_PROVIDER_API_KEY: UPSTREAM_KEY,
    SVC_PROVIDER_URL: `${model.url}/v1`,
    SVC_MODEL: 'test-model',
    SVC_PROVIDER_TIMEOUT_MS: '800',
    SVC_TOOL_ALLOWED_HOSTS: '127.0.0.1',
  }));
  const run = (body: Record<string, unknown>) =>
    request(gateway.url).post('/v1/agent/run').set(auth).send(body);

  it('runs two turns: the model asks for a tool, gets the result, answers', async () => {
    model.reset((_req, n) =>
      n === 0
        ? {
            body: completion(null, [
              { id: 'call_abc', name: 'calculator', arguments: '{"expression":"6*7"}' },
            ]),
          }
        : { body: completion('The answer is 42.') },
    );
    const res = await run({ tenant_id: 'acme', prompt: 'what is 6*7?' }).expect(200);
    expect(res.body).toMatchObject({
      text: 'The answer is 42.',
      turns: 2,
      tool_calls: 1,
      finish_reason: 'stop',
    });
    expect(model.requests).toHaveLength(2);
    const [first, second] = model.requests;
    expect(first.path).toBe('/v1/chat/completions');
    expect(first.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(first.body.model).toBe('test-model');
    expect(first.body.tools).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'function',
          function: expect.objectContaining({ name: 'calculator' }),
        }),
      ]),
    );
    const toolResult = (second.body.messages as WireMessage[]).find((m) => m.role === 'tool');
    expect(toolResult).toMatchObject({ tool_call_id: 'call_abc', content: '42' });
  });

  it('offers a 128-character dotted tool name under an alias the API accepts, and calls the real tool', async () => {
    const { seen, url, close } = await recordingTool('{"status":"shipped"}');
    const name = `orders.lookup.${'x'.repeat(114)}`; // 128 characters, with dots
    await request(gateway.url)
      .put(`/v1/toolsets/long/tools/${name}`)
      .set(auth)
      .send({
        tenant_id: 'acme',
        description: 'looks an order up',
        parameters: { type: 'object', properties: { order: { type: 'string' } } },
        endpoint: { url },
      })
      .expect(200);
    let alias = '';
    model.reset((req, n) => {
      if (n > 0) return { body: completion('It has shipped.') };
      const tools = req.body.tools as Array<{ function: { name: string; description: string } }>;
      alias = tools.find((tool) => tool.function.description === 'looks an order up')!.function
        .name;
      return {
        body: completion(null, [{ id: 'call_long', name: alias, arguments: '{"order":"A-17"}' }]),
      };
    });
    const res = await run({ tenant_id: 'acme', toolset: 'long', prompt: 'where is A-17?' }).expect(
      200,
    );
    close();
    expect(alias).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(alias.startsWith('orders_lookup_')).toBe(true);
    expect(res.body).toMatchObject({ text: 'It has shipped.', tool_calls: 1 });
    expect(seen).toEqual([{ order: 'A-17' }]);
    // The earlier call goes back to the model under the same alias.
    const history = model.requests[1].body.messages as Array<{
      role: string;
      tool_calls?: Array<{ function: { name: string } }>;
    }>;
    const asked = history.find((message) => message.role === 'assistant');
    expect(asked?.tool_calls?.[0]?.function.name).toBe(alias);
  });

  it('calls the tools it offered the model, even one deleted while the model answered', async () => {
    const { seen, url, close } = await recordingTool('{"status":"packing"}');
    const tool = `/v1/toolsets/offered/tools/lookup`;
    await request(gateway.url)
      .put(tool)
      .set(auth)
      .send({
        tenant_id: 'acme',
        description: 'looks an order up',
        parameters: { type: 'object', properties: { order: { type: 'string' } } },
        endpoint: { url },
      })
      .expect(200);
    model.reset((_req, n) =>
      n === 0
        ? {
            delayMs: 300,
            body: completion(null, [{ id: 'call_1', name: 'lookup', arguments: '{"order":"B"}' }]),
          }
        : { body: completion('Packing.') },
    );
    // Sent now (then), answered after the deletion below.
    const answered = run({ tenant_id: 'acme', toolset: 'offered', prompt: 'where is B?' }).then(
      (res) => res,
    );
    while (model.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await request(gateway.url).delete(tool).query({ tenant_id: 'acme' }).set(auth).expect(200);
    const res = await answered;
    close();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ text: 'Packing.', tool_calls: 1 });
    expect(seen).toEqual([{ order: 'B' }]);
  });

  it("never offers an alias that is another tool's own name: each call reaches the tool the model chose", async () => {
    const hits: string[] = [];
    const endpoint = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        hits.push(req.url ?? '');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ answered_by: req.url }));
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
    // The alias `lookup.order` would get on its own, taken by another tool's real name.
    const taken = `lookup_order_${createHash('sha256').update('lookup.order').digest('hex').slice(0, 8)}`;
    for (const [name, path] of [
      ['lookup.order', '/dotted'],
      [taken, '/plain'],
    ]) {
      await request(gateway.url)
        .put(`/v1/toolsets/clash/tools/${name}`)
        .set(auth)
        .send({
          tenant_id: 'acme',
          description: `answers ${path}`,
          parameters: { type: 'object', properties: {} },
          endpoint: { url: `${base}${path}` },
        })
        .expect(200);
    }
    let offered: string[] = [];
    model.reset((req, n) => {
      const tools = req.body.tools as Array<{ function: { name: string; description: string } }>;
      offered = tools.map((tool) => tool.function.name);
      const named = (path: string) =>
        tools.find((tool) => tool.function.description === `answers ${path}`)!.function.name;
      if (n === 0) {
        return {
          body: completion(null, [
            { id: 'call_dotted', name: named('/dotted'), arguments: '{}' },
            { id: 'call_plain', name: named('/plain'), arguments: '{}' },
          ]),
        };
      }
      return { body: completion('done') };
    });
    const res = await run({ tenant_id: 'acme', toolset: 'clash', prompt: 'look both up' }).expect(
      200,
    );
    endpoint.close();
    expect(res.body).toMatchObject({ text: 'done', tool_calls: 2 });
    expect(offered).toContain(taken);
    expect(new Set(offered).size).toBe(offered.length);
    for (const name of offered) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(hits.sort()).toEqual(['/dotted', '/plain']);
    // Each result goes back to the model under the call it answers.
    const results = (model.requests[1].body.messages as WireMessage[]).filter(
      (message) => message.role === 'tool',
    );
    expect(results.map(({ tool_call_id, content }) => [tool_call_id, content]).sort()).toEqual([
      ['call_dotted', '{"answered_by":"/dotted"}'],
      ['call_plain', '{"answered_by":"/plain"}'],
    ]);
  });

  it('retries a failing model: 500 twice then 200 succeeds', async () => {
    model.reset((_req, n) =>
      n < 2 ? { status: 500, body: { error: 'overloaded' } } : { body: completion('recovered') },
    );
    const res = await run({ tenant_id: 'acme', prompt: 'hi' }).expect(200);
    expect(res.body.text).toBe('recovered');
    expect(model.requests).toHaveLength(3);
  });

  it('answers 502 when the model always fails, and records the run as failed', async () => {
    model.reset(() => ({ status: 500, body: { error: `down ${UPSTREAM_KEY}` } }));
    const res = await run({ tenant_id: 'acme', run_id: 'run-502', prompt: 'hi' }).expect(502);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.stringify(res.body)).not.toContain(UPSTREAM_KEY);
    const stored = await request(gateway.url)
      .get('/v1/runs/run-502?tenant_id=acme')
      .set(auth)
      .expect(200);
    expect(stored.body).toMatchObject({
      status: 'failed',
      finish_reason: 'error',
      error: { status: 502 },
    });
    const calls = model.requests.length;
    await run({ tenant_id: 'acme', run_id: 'run-502', prompt: 'hi' }).expect(502);
    expect(model.requests).toHaveLength(calls);
  });

  it('answers 504 within the timeout when the model hangs', async () => {
    model.reset(() => ({ delayMs: 5_000, body: completion('too late') }));
    const started = Date.now();
    const res = await run({ tenant_id: 'acme', prompt: 'hi' }).expect(504);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(res.body.status).toBe(504);
  });

  it('never calls the model twice for a repeated run_id', async () => {
    model.reset((req) => ({ body: completion(`answer to ${lastUserText(req)}`) }));
    const first = await run({ tenant_id: 'acme', run_id: 'run-once', prompt: 'question' }).expect(
      200,
    );
    const second = await run({ tenant_id: 'acme', run_id: 'run-once', prompt: 'question' }).expect(
      200,
    );
    expect(second.body).toEqual(first.body);
    expect(model.requests).toHaveLength(1);
  });

  it('runs a run_id sent twice at once to one replica only once', async () => {
    model.reset(() => ({ delayMs: 100, body: completion('single') }));
    const responses = await Promise.all([
      run({ tenant_id: 'acme', run_id: 'same-replica', prompt: 'go' }),
      run({ tenant_id: 'acme', run_id: 'same-replica', prompt: 'go' }),
    ]);
    expect(responses.map((res) => res.status).sort()).toEqual([200, 409]);
    expect(model.requests).toHaveLength(1);
  });

  it("carries a session's earlier messages into the next run's model call", async () => {
    model.reset((req) => ({ body: completion(`answer to ${lastUserText(req)}`) }));
    await run({ tenant_id: 'acme', session_id: 'carry', prompt: 'my name is Ada' }).expect(200);
    await run({ tenant_id: 'acme', session_id: 'carry', prompt: 'what is my name?' }).expect(200);
    const sent = (model.requests[1].body.messages as WireMessage[]).map((m) => [m.role, m.content]);
    expect(sent).toEqual([
      ['user', 'my name is Ada'],
      ['assistant', 'answer to my name is Ada'],
      ['user', 'what is my name?'],
    ]);
  });

  it('serialises runs on one session: enqueue waits, reject gets 409', async () => {
    model.reset((req) => ({ delayMs: 300, body: completion(`answer to ${lastUserText(req)}`) }));
    const [a, b] = await Promise.all([
      run({ tenant_id: 'acme', session_id: 'queue', prompt: 'one' }),
      run({ tenant_id: 'acme', session_id: 'queue', prompt: 'two' }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const session = await request(gateway.url)
      .get('/v1/sessions/queue?tenant_id=acme')
      .set(auth)
      .expect(200);
    expect(session.body.messages).toHaveLength(4);

    // supertest sends on then(); start the slow run now.
    const slow = run({ tenant_id: 'acme', session_id: 'busy', prompt: 'slow' }).then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const rejected = await run({
      tenant_id: 'acme',
      session_id: 'busy',
      prompt: 'now',
      multitask: 'reject',
    });
    expect(rejected.status).toBe(409);
    expect(rejected.body.type).toBe('urn:svc:problem:session-busy');
    expect((await slow).status).toBe(200);
  });
});
