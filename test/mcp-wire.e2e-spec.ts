import { beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Backend } from './support/backends.js';
import { INITIALIZE, mcpHeaders, rpcMessages } from './support/mcp-client.js';
import { ROOT_KEY, bearer } from './support/mcp-fixtures.js';
import { readEvents } from './support/sse-client.js';
import { gatewayForSuite } from './support/suite.js';

// Wire behaviour does not depend on the state backend: these run on sqlite only.
const BACKEND: Backend = 'sqlite';
const KEYED = { SVC_API_KEY: ROOT_KEY, SVC_TENANT: 'acme' };

describe('MCP on the wire: JSON-RPC errors, headers, auth', () => {
  const gateway = gatewayForSuite(BACKEND, KEYED);
  const post = (body: string | object, headers: Record<string, string> = {}) =>
    request(gateway.url)
      .post('/mcp/')
      .set({ ...mcpHeaders(), ...bearer(ROOT_KEY), ...headers })
      .send(typeof body === 'string' ? body : JSON.stringify(body));
  const error = (res: request.Response) => ({
    status: res.status,
    type: res.headers['content-type'],
    code: (JSON.parse(res.text) as { error?: { code?: number } }).error?.code,
  });

  let sessionId = '';
  beforeAll(async () => {
    const init = await post(INITIALIZE).expect(200);
    sessionId = init.headers['mcp-session-id'];
  });
  const inSession = (body: object) => post(body, { 'Mcp-Session-Id': sessionId });

  it('answers malformed JSON with -32700 and a JSON-RPC body, never HTML', async () => {
    expect(error(await post('{"jsonrpc": "2.0",'))).toEqual({
      status: 400,
      type: 'application/json',
      code: -32700,
    });
  });

  it('answers a body that is no JSON-RPC request with -32600', async () => {
    for (const body of [{ hello: 'world' }, [], { jsonrpc: '1.0', id: 1, method: 'ping' }]) {
      expect(error(await post(body))).toEqual({
        status: 400,
        type: 'application/json',
        code: -32600,
      });
    }
  });

  it('answers an unknown method with -32601 and bad params with -32602', async () => {
    const unknown = await inSession({ jsonrpc: '2.0', id: 2, method: 'no/such-method' }).expect(
      200,
    );
    expect(rpcMessages(unknown.headers['content-type'], unknown.text)).toEqual([
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
    ]);
    const bad = await inSession({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 42 },
    });
    expect(rpcMessages(bad.headers['content-type'], bad.text)).toEqual([
      { jsonrpc: '2.0', id: 3, error: expect.objectContaining({ code: -32602 }) },
    ]);
    const badInit = await post({ ...INITIALIZE, params: { protocolVersion: 7 } });
    expect(error(badInit)).toEqual({ status: 400, type: 'application/json', code: -32602 });
  });

  it('refuses the wrong Accept (406), a non-JSON body (415) and a body over the limit (413)', async () => {
    expect(error(await post(INITIALIZE, { Accept: 'application/json' }))).toMatchObject({
      status: 406,
      code: -32000,
    });
    expect(error(await post('ping', { 'Content-Type': 'text/plain' }))).toMatchObject({
      status: 415,
    });
    const huge = JSON.stringify({ ...INITIALIZE, pad: 'x'.repeat(1024 * 1024) });
    expect(error(await post(huge))).toMatchObject({ status: 413, code: -32000 });
  });

  it('answers notifications with 202 and no body', async () => {
    const res = await inSession({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect({ status: res.status, text: res.text }).toEqual({ status: 202, text: '' });
  });

  it('refuses a foreign Origin or Host with 403 (DNS rebinding), allows loopback pages', async () => {
    expect(error(await post(INITIALIZE, { Origin: 'http://evil.example' }))).toMatchObject({
      status: 403,
    });
    expect(error(await post(INITIALIZE, { Host: 'evil.example' }))).toMatchObject({ status: 403 });
    await post(INITIALIZE, { Origin: 'http://localhost:6274' }).expect(200);
  });

  it('refuses a foreign Origin before asking for a key, in the style of every refusal', async () => {
    for (const method of ['post', 'get', 'delete'] as const) {
      // No key at all: still 403, so a rebinding page learns nothing of the key check.
      const res = await request(gateway.url)
        [method]('/mcp/')
        .set({ ...mcpHeaders(), Origin: 'http://evil.example' })
        .send(method === 'post' ? INITIALIZE : undefined);
      expect({ status: res.status, auth: res.headers['www-authenticate'] }).toEqual({
        status: 403,
        auth: undefined,
      });
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32000,
          message: 'Forbidden: Origin "http://evil.example" is not allowed',
          data: { type: 'urn:svc:problem:forbidden', status: 403 },
        },
      });
    }
    // The probe stays public and unchecked.
    await request(gateway.url).get('/mcp/health').set('Origin', 'http://evil.example').expect(200);
  });

  it('refuses JSON-RPC batches on a session that negotiated a revision without them', async () => {
    const batch = [{ jsonrpc: '2.0', id: 11, method: 'ping' }];
    for (const revision of ['2025-06-18', '2025-11-25']) {
      const init = await post({
        ...INITIALIZE,
        params: { ...INITIALIZE.params, protocolVersion: revision },
      }).expect(200);
      // The session's own revision decides, whether or not the header says it again.
      const refused = await request(gateway.url)
        .post('/mcp/')
        .set({
          Accept: 'application/json, text/event-stream',
          'Content-Type': 'application/json',
          ...bearer(ROOT_KEY),
          'Mcp-Session-Id': init.headers['mcp-session-id'],
        })
        .send(JSON.stringify(batch));
      expect({ status: refused.status, body: refused.body }).toMatchObject({
        status: 400,
        body: { error: { code: -32600, message: expect.stringContaining(revision) } },
      });
    }
    // 2025-03-26 had batches: its session may still send one.
    const old = await post({
      ...INITIALIZE,
      params: { ...INITIALIZE.params, protocolVersion: '2025-03-26' },
    }).expect(200);
    const allowed = await request(gateway.url)
      .post('/mcp/')
      .set({
        Accept: 'application/json, text/event-stream',
        'Content-Type': 'application/json',
        ...bearer(ROOT_KEY),
        'Mcp-Session-Id': old.headers['mcp-session-id'],
      })
      .send(JSON.stringify(batch))
      .expect(200);
    expect(rpcMessages(allowed.headers['content-type'], allowed.text)).toEqual([
      { jsonrpc: '2.0', id: 11, result: {} },
    ]);
  });

  it('never opens a session from a batch holding initialize, in any revision', async () => {
    for (const revision of ['2025-11-25', '2025-03-26']) {
      const init = { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: revision } };
      const res = await request(gateway.url)
        .post('/mcp/')
        .set({
          Accept: 'application/json, text/event-stream',
          'Content-Type': 'application/json',
          ...bearer(ROOT_KEY),
        })
        .send(JSON.stringify([init]));
      expect({ status: res.status, session: res.headers['mcp-session-id'] }).toEqual({
        status: 400,
        session: undefined,
      });
      expect(res.body.error).toMatchObject({
        code: -32600,
        message: expect.stringContaining('initialize must be sent alone'),
      });
    }
  });

  it('keeps a session to the tenant and toolset it was opened for', async () => {
    const other = await post(INITIALIZE, { 'X-Tenant-Id': 'zeta' });
    expect(other.status).toBe(200);
    const ping = { jsonrpc: '2.0', id: 12, method: 'ping' };
    const swaps: Array<Record<string, string>> = [
      { 'X-Tenant-Id': 'acme' },
      { 'X-Tenant-Id': 'zeta', 'X-Toolset': 'ops' },
    ];
    for (const swap of swaps) {
      const res = await post(ping, { 'Mcp-Session-Id': other.headers['mcp-session-id'], ...swap });
      expect({ status: res.status, code: res.body.error?.code }).toEqual({
        status: 400,
        code: -32000,
      });
      expect(res.body.error.message).toContain('opened for tenant "zeta" and toolset "default"');
    }
    await post(ping, {
      'Mcp-Session-Id': other.headers['mcp-session-id'],
      'X-Tenant-Id': 'zeta',
    }).expect(200);
  });

  it('answers GET and DELETE of the 2026-07-28 revision 405: it has no stream or session', async () => {
    for (const method of ['get', 'delete'] as const) {
      const res = await request(gateway.url)
        [method]('/mcp/')
        .set({ ...mcpHeaders({ 'MCP-Protocol-Version': '2026-07-28' }), ...bearer(ROOT_KEY) });
      expect({ status: res.status, allow: res.headers.allow, code: res.body.error?.code }).toEqual({
        status: 405,
        allow: 'POST',
        code: -32000,
      });
    }
  });

  it("opens a session's GET stream with a priming event whose id resumes it", async () => {
    const init = await post({
      ...INITIALIZE,
      params: { ...INITIALIZE.params, protocolVersion: '2025-11-25' },
    }).expect(200);
    const sessionId = init.headers['mcp-session-id'];
    const headers = {
      ...bearer(ROOT_KEY),
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': '2025-11-25',
    };
    const first = await readEvents(`${gateway.url}/mcp/`, {
      headers,
      until: (event) => event.data === '',
    });
    expect(first.status).toBe(200);
    const [priming] = first.events;
    expect(priming).toMatchObject({
      id: expect.stringMatching(/^_GET_stream:\d+$/),
      retry: 1000,
      data: '',
    });
    // A change while the client is away, then it comes back after the priming event.
    await request(gateway.url)
      .put('/v1/prompts/while-away')
      .set(bearer(ROOT_KEY))
      .send({
        tenant_id: 'acme',
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
      })
      .expect(200);
    const resumed = await readEvents(`${gateway.url}/mcp/`, {
      headers: { ...headers, 'Last-Event-ID': priming.id! },
      until: (event) => event.json !== undefined,
    });
    expect(resumed.events.at(-1)?.json).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/prompts/list_changed',
    });
  });

  it('opens a 2025-11-25 SSE stream with a priming event (id, retry) and resumes it by Last-Event-ID', async () => {
    const init = await post({
      ...INITIALIZE,
      params: { ...INITIALIZE.params, protocolVersion: '2025-11-25' },
    }).expect(200);
    const session = {
      'Mcp-Session-Id': init.headers['mcp-session-id'],
      'MCP-Protocol-Version': '2025-11-25',
    };
    // A progress token makes the answer a stream.
    const call = await post(
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'calculator',
          arguments: { expression: '2+2' },
          _meta: { progressToken: 'p1' },
        },
      },
      session,
    ).expect(200);
    expect(call.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = call.text.split('\n\n').filter((event) => event.trim() !== '');
    expect(events[0]).toMatch(/^id: \S+\nretry: 1000\ndata: $/);
    const ids = events.map((event) => /^id: (\S+)$/m.exec(event)?.[1]);
    expect(ids.every((id) => id !== undefined)).toBe(true);
    expect(rpcMessages('text/event-stream', call.text).at(-1)).toMatchObject({
      id: 7,
      result: { content: [{ type: 'text', text: '4' }] },
    });
    // A client that lost the stream after the priming event gets the rest again.
    const resumed = await request(gateway.url)
      .get('/mcp/')
      .set({ ...mcpHeaders(), ...bearer(ROOT_KEY), ...session, 'Last-Event-ID': ids[0]! })
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          // Replayed up to the answer: enough for this test.
          if (text.includes('"id":7')) (res as unknown as { destroy(): void }).destroy();
        });
        res.on('close', () => done(null, text));
        res.on('end', () => done(null, text));
      });
    expect(rpcMessages('text/event-stream', String(resumed.body)).at(-1)).toMatchObject({
      id: 7,
      result: { content: [{ type: 'text', text: '4' }] },
    });
  });

  it('needs a key (401 with WWW-Authenticate) except for GET /mcp/health', async () => {
    for (const path of ['/mcp/', '/mcp']) {
      const res = await request(gateway.url).post(path).set(mcpHeaders()).send(INITIALIZE);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="svc"');
      expect(res.body).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32000, data: { type: 'urn:svc:problem:unauthorized', status: 401 } },
      });
    }
    const wrongKey = await request(gateway.url)
      .post('/mcp/')
      .set({ ...mcpHeaders(), Authorization: 'Bearer not-a-key' })
      .send(INITIALIZE);
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.headers['www-authenticate']).toBe('Bearer realm="svc", error="invalid_token"');
    const health = await request(gateway.url).get('/mcp/health').expect(200);
    expect(health.body).toEqual({ status: 'ok' });
  });
});
