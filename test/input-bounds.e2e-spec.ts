import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { ChatServer } from './support/chat-server.js';
import { INITIALIZE, mcpHeaders } from './support/mcp-client.js';
import { gatewayForSuite } from './support/suite.js';

const KEY = 'input-bounds-test-key';
const auth = { Authorization: `Bearer ${KEY}` };
const JSON_TYPE = { 'Content-Type': 'application/json' };

/** `levels` arrays nested in each other: `[[[…]]]`. */
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

function expectProblem(res: request.Response, status: number, slug: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: `urn:svc:problem:${slug}`, status });
}

describe.each(BACKENDS)('request input is bounded before it is transformed (%s)', (backend) => {
  const chat = new ChatServer();
  beforeAll(() => chat.start());
  afterAll(() => chat.close());
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: KEY,
    SVC_CHATA_WEBHOOK: chat.slackUrl,
    SVC_RATE_LIMIT_PER_MIN: '0',
  }));

  const send = (method: 'post' | 'put', path: string, body: string) =>
    request(gateway.url)[method](path).set(auth).set(JSON_TYPE).send(body);

  describe('deep nesting (SVC_MAX_JSON_DEPTH, default 64)', () => {
    // Each body puts the deep value where the route keeps free-form JSON (or any field).
    const routes: Array<[string, 'post' | 'put', string, (deep: string) => string]> = [
      [
        'agent run metadata',
        'post',
        '/v1/agent/run',
        (d) => `{"tenant_id":"ta","prompt":"x","metadata":{"m":${d}}}`,
      ],
      [
        'tool arguments',
        'post',
        '/v1/tools/default/calculator',
        (d) => `{"tenant_id":"ta","arguments":{"a":${d}}}`,
      ],
      [
        'agent spec',
        'put',
        '/v1/agents/deep',
        (d) =>
          `{"tenant_id":"ta","topology":"pipeline","steps":[{"id":"s","kind":"tool","tool":"calculator","arguments":{"a":${d}}}]}`,
      ],
      [
        'tool registration',
        'put',
        '/v1/toolsets/deep/tools/t',
        (d) =>
          `{"tenant_id":"ta","description":"d","parameters":{"a":${d}},"endpoint":{"url":"http://127.0.0.1:9/"}}`,
      ],
      [
        'messaging webhook',
        'post',
        '/v1/messaging/webhook',
        (d) =>
          `{"tenant_id":"ta","channel":"chata","conversation_id":"c","user":"u","event_id":"e","text":${d}}`,
      ],
      [
        'approval',
        'post',
        '/v1/runs/r/approve',
        (d) => `{"tenant_id":"ta","node_id":"n","comment":${d}}`,
      ],
      ['board', 'post', '/v1/board/cards', (d) => `{"tenant_id":"ta","title":${d}}`],
    ];

    it.each(routes)(
      'refuses %s nested 1,500 levels with a 400 problem',
      async (_name, method, path, body) => {
        const res = await send(method, path, body(nested(1500)));
        expectProblem(res, 400, 'json-too-deep');
        expect(res.body.detail).toBe('the JSON is nested deeper than 64 levels');
      },
    );

    it('refuses a body that is nothing but nesting up to the body limit', async () => {
      expectProblem(await send('post', '/v1/agent/run', nested(400_000)), 400, 'json-too-deep');
    });

    it('takes 64 levels and refuses 65', async () => {
      // The body is level 1, metadata level 2: 62 more arrays make 64.
      const ok = await send(
        'post',
        '/v1/agent/run',
        `{"tenant_id":"ta","prompt":"x","metadata":{"m":${nested(62)}}}`,
      );
      expect(ok.status).toBe(200);
      expect(ok.body.status).toBe('completed');
      const deep = await send(
        'post',
        '/v1/agent/run',
        `{"tenant_id":"ta","prompt":"x","metadata":{"m":${nested(63)}}}`,
      );
      expectProblem(deep, 400, 'json-too-deep');
    });

    it('ignores brackets inside strings', async () => {
      const text = JSON.stringify({ tenant_id: 'ta', prompt: `[{"\\"${'['.repeat(500)}` });
      const res = await send('post', '/v1/agent/run', text);
      expect(res.status).toBe(200);
      expect(res.body.text).toBe(`[{"\\"${'['.repeat(500)}`);
    });

    it('answers MCP with a JSON-RPC error', async () => {
      const body = JSON.stringify({
        ...INITIALIZE,
        params: { ...INITIALIZE.params, capabilities: { x: 1 } },
      }).replace('"x":1', `"x":${nested(1500)}`);
      const res = await request(gateway.url)
        .post('/mcp/')
        .set(auth)
        .set(mcpHeaders({ 'X-Tenant-Id': 'ta' }))
        .send(body);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Invalid Request: the JSON is nested deeper than 64 levels',
          data: { type: 'urn:svc:problem:bad-request', status: 400 },
        },
      });
    });
  });

  describe('oversized arrays and values', () => {
    const steps = (items: unknown[]) =>
      JSON.stringify({ tenant_id: 'ta', topology: 'pipeline', steps: items });

    it('answers 60,000 empty steps with a small 400 naming the limit', async () => {
      const res = await send(
        'put',
        '/v1/agents/x',
        steps(Array.from({ length: 60_000 }, () => ({}))),
      );
      expectProblem(res, 400, 'validation');
      expect(res.body.errors).toEqual([
        { path: 'steps', message: 'steps must contain no more than 100 elements' },
      ]);
      expect(res.body.detail).toBe('steps must contain no more than 100 elements');
      expect(res.text.length).toBeLessThan(2_000);
    });

    it('answers 200,000 zeros with a small 400, wherever the array is', async () => {
      const zeros = Array<number>(200_000).fill(0);
      const asSteps = await send('put', '/v1/agents/x', steps(zeros));
      expectProblem(asSteps, 400, 'validation');
      expect(asSteps.text.length).toBeLessThan(2_000);

      const asDepends = await send(
        'put',
        '/v1/agents/x',
        steps([{ id: 'a', kind: 'tool', tool: 'calculator', depends_on: zeros }]),
      );
      expectProblem(asDepends, 400, 'validation');
      expect(asDepends.body.errors).toEqual([
        {
          path: 'steps[0].depends_on',
          message: 'depends_on must contain no more than 100 elements',
        },
      ]);

      const asMessages = await send(
        'post',
        '/v1/agent/run',
        JSON.stringify({ tenant_id: 'ta', messages: zeros }),
      );
      expectProblem(asMessages, 400, 'validation');
      expect(asMessages.text.length).toBeLessThan(2_000);

      // A field that takes a string, and a field that does not exist.
      for (const body of [
        { tenant_id: 'ta', prompt: zeros },
        { tenant_id: 'ta', surprise: zeros },
      ]) {
        const res = await send('post', '/v1/agent/run', JSON.stringify(body));
        expectProblem(res, 400, 'validation');
        expect(res.text.length).toBeLessThan(2_000);
      }
    });

    it('answers thousands of unknown fields with a small 400', async () => {
      const body: Record<string, number> = { tenant_id: 0 };
      for (let i = 0; i < 50_000; i++) body[`f${i}`] = i;
      const res = await send('post', '/v1/agent/run', JSON.stringify(body));
      expectProblem(res, 400, 'validation');
      expect(res.text.length).toBeLessThan(2_000);
    });

    it('lists at most 20 field errors and says how many more there were', async () => {
      const bad = Array.from({ length: 100 }, () => ({ id: '', kind: 'nope' }));
      const res = await send('put', '/v1/agents/x', steps(bad));
      expectProblem(res, 400, 'validation');
      expect(res.body.errors).toHaveLength(20);
      expect(res.body.detail).toMatch(/\(180 more errors not listed\)$/);
    });

    it('keeps large free-form values whole and answers /healthz meanwhile', async () => {
      const big = Array.from({ length: 50_000 }, (_, i) => ({ i }));
      const [run, health] = await Promise.all([
        send(
          'post',
          '/v1/agent/run',
          JSON.stringify({ tenant_id: 'ta', prompt: 'big', metadata: { big } }),
        ),
        request(gateway.url).get('/healthz'),
      ]);
      expect(run.status).toBe(200);
      expect(health.status).toBe(200);
    });
  });

  describe('null and wrong shapes', () => {
    it('refuses prompt: null (and null for any optional field) with a 400', async () => {
      for (const field of ['prompt', 'messages', 'metadata', 'agent', 'session_id', 'max_turns']) {
        const res = await send(
          'post',
          '/v1/agent/run',
          JSON.stringify({ tenant_id: 'ta', [field]: null }),
        );
        expectProblem(res, 400, 'validation');
        const errors = res.body.errors as Array<{ path: string }>;
        expect(errors.map((e) => e.path)).toContain(field);
      }
    });

    it('refuses a tool endpoint that is not an object with a 400', async () => {
      for (const endpoint of [
        [],
        [{ url: 'http://127.0.0.1:9/' }],
        'http://127.0.0.1:9/',
        null,
        7,
      ]) {
        const res = await send(
          'put',
          '/v1/toolsets/shapes/tools/t',
          JSON.stringify({
            tenant_id: 'ta',
            description: 'd',
            parameters: { type: 'object' },
            endpoint,
          }),
        );
        expectProblem(res, 400, 'validation');
        expect(res.body.errors).toContainEqual({
          path: 'endpoint',
          message: 'endpoint must be an object',
        });
      }
    });

    it('keeps free-form keys named like Object.prototype members', async () => {
      const res = await send(
        'post',
        '/v1/tools/default/calculator',
        JSON.stringify({ tenant_id: 'ta', arguments: { expression: '1+1', toString: 1 } }),
      );
      // The calculator's schema has no `toString`: the key reached the schema check.
      expectProblem(res, 422, 'invalid-arguments');
    });
  });

  describe('control characters in identifiers, NUL in free text', () => {
    it('refuses NUL in a path id or tenant_id with a 400', async () => {
      const runPath = await request(gateway.url).get('/v1/runs/a%00b?tenant_id=ta').set(auth);
      expectProblem(runPath, 400, 'validation');
      expect(runPath.body.errors).toEqual([
        { path: 'run_id', message: 'run_id must not contain control characters' },
      ]);

      const sessionPath = await request(gateway.url)
        .get('/v1/sessions/a%00b?tenant_id=ta')
        .set(auth);
      expectProblem(sessionPath, 400, 'bad-request');

      const query = await request(gateway.url).get('/v1/runs/x?tenant_id=ta%00').set(auth);
      expectProblem(query, 400, 'validation');

      for (const tenant of ['ta\u0000', 'ta\u001b[31m', 'ta\u0085', 'ta\ud800']) {
        const body = await send(
          'post',
          '/v1/agent/run',
          JSON.stringify({ tenant_id: tenant, prompt: 'x' }),
        );
        expectProblem(body, 400, 'validation');
        expect(body.body.errors).toEqual([
          { path: 'tenant_id', message: 'tenant_id must not contain control characters' },
        ]);
      }

      // Other path ids reach the state backend through the one identifier check.
      for (const path of [
        '/v1/toolsets/a%00b?tenant_id=ta',
        '/v1/agents/a%00b?tenant_id=ta',
        '/v1/board/cards/a%00b?tenant_id=ta',
      ]) {
        const res = await request(gateway.url).get(path).set(auth);
        expect([400, 404]).toContain(res.status);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      const callPath = await send('post', '/v1/tools/a%00b/x', JSON.stringify({ tenant_id: 'ta' }));
      expect([400, 404]).toContain(callPath.status);

      const tool = await send(
        'post',
        '/v1/tools/default/calculator',
        JSON.stringify({ tenant_id: 'ta\u0000', arguments: {} }),
      );
      expectProblem(tool, 400, 'validation');

      const event = await send(
        'post',
        '/v1/messaging/webhook',
        JSON.stringify({
          tenant_id: 'ta',
          channel: 'chata',
          conversation_id: 'c\u0000',
          user: 'u',
          event_id: 'e',
          text: 't',
        }),
      );
      expectProblem(event, 400, 'validation');

      const mcp = await request(gateway.url)
        .post('/mcp/?tenant_id=a%00b')
        .set(auth)
        .set(mcpHeaders())
        .send(INITIALIZE);
      expect(mcp.status).toBe(400);
      expect(mcp.body.error).toMatchObject({ code: -32000 });
    });

    it('stores and returns webhook text with NUL and lone surrogates exactly', async () => {
      for (const text of ['a\u0000b', '\u0000', 'x\ud800y', '\ufdd0"starts with the marker"']) {
        const eventId = `nul-${Math.random().toString(36).slice(2)}`;
        const event = JSON.stringify({
          tenant_id: 'nul',
          channel: 'chata',
          conversation_id: 'c',
          user: 'u',
          event_id: eventId,
          text,
        });
        const res = await send('post', '/v1/messaging/webhook?wait=true', event);
        expect(res.status).toBe(200);
        expect(res.body.reply).toBe(text);

        const run = await request(gateway.url)
          .get(`/v1/runs/${res.body.run_id}?tenant_id=nul`)
          .set(auth)
          .expect(200);
        expect(run.body.text).toBe(text);

        const listed = await request(gateway.url)
          .get('/v1/messaging/outbox?tenant_id=nul')
          .set(auth)
          .expect(200);
        const entry = (listed.body.deliveries as Array<{ event_id: string; reply: string }>).find(
          (delivery) => delivery.event_id === eventId,
        );
        expect(entry?.reply).toBe(text);

        // The repeated event reads the stored row back.
        const again = await send('post', '/v1/messaging/webhook?wait=true', event);
        expect(again.body).toMatchObject({ duplicate: true, reply: text });
      }
    });
  });
});
