import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Backend } from './support/backends.js';
import { type GatedEndpoint, startGatedEndpoint } from './support/gated-endpoint.js';
import { INITIALIZE, rpcMessages } from './support/mcp-client.js';
import { KEY_A, ROOT_KEY, bearer, registerTool, writeMcpKeysFile } from './support/mcp-fixtures.js';
import { type SseResult, readEvents } from './support/sse-client.js';
import { type SuiteGateway, gatewayForSuite } from './support/suite.js';

// Stream framing does not depend on the state backend: these run on sqlite only.
const BACKEND: Backend = 'sqlite';
const HEARTBEAT_MS = 1000; // the shortest SVC_STREAM_HEARTBEAT_MS allows
const MODERN = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

let gated: GatedEndpoint;
beforeAll(async () => {
  gated = await startGatedEndpoint();
});
afterAll(() => gated.close());

const env = (mode: 'stateful' | 'stateless') => () => ({
  SVC_API_KEY: ROOT_KEY,
  SVC_KEYS_FILE: writeMcpKeysFile(),
  SVC_TOOL_ALLOWED_HOSTS: '127.0.0.1',
  SVC_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS),
  SVC_MCP_MODE: mode,
});

const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-e2e', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const ACCEPT = { Accept: 'application/json, text/event-stream' };

function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    ...ACCEPT,
    ...bearer(KEY_A),
    'MCP-Protocol-Version': MODERN,
    'Mcp-Method': method,
    ...(name === undefined ? {} : { 'Mcp-Name': name }),
  };
}

const callGated = (id: number, meta: object = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'gated', arguments: {}, _meta: { progressToken: `p${id}`, ...meta } },
});

/** A priming event: an id, the reconnection delay, no data (the client hears nothing). */
const PRIMING = { data: '', retry: 1000, id: expect.any(String) };

/**
 * Reads an SSE answer to a call of the gated tool: holds the tool until the stream has carried
 * a keepalive comment, then lets it answer; the stream ends with the call's result.
 */
async function heldCall(url: string, headers: Record<string, string>, body: object) {
  const arrived = gated.arrived();
  let released = false;
  const answer = readEvents(url, {
    method: 'POST',
    headers,
    body,
    onComment: (comments) => {
      if (comments > 0 && !released) {
        released = true;
        void arrived.then(() => gated.release());
      }
    },
    until: (event) => (event.json as { id?: unknown } | undefined)?.id !== undefined,
    timeoutMs: 10_000,
  });
  return answer;
}

function expectPrimedAndKeptAlive(answer: SseResult, idPattern: RegExp): void {
  expect(answer.status).toBe(200);
  const [first] = answer.events;
  expect(first).toMatchObject(PRIMING);
  expect(first.id).toMatch(idPattern);
  expect(answer.comments).toBeGreaterThan(0);
  expect(answer.events.at(-1)?.json).toMatchObject({
    result: { structuredContent: { released: true } },
  });
}

const UUID = /^[0-9a-f-]{36}$/;

function registerGated(gateway: SuiteGateway) {
  return registerTool(gateway.url, {
    tenant: 'a',
    toolset: 'default',
    name: 'gated',
    url: gated.url,
  });
}

describe('MCP streams with sessions: priming events and keepalives on every stream', () => {
  const gateway = gatewayForSuite(BACKEND, env('stateful'));
  const mcp = () => `${gateway.url}/mcp/`;
  beforeAll(() => registerGated(gateway));

  it("primes a 2026-07-28 tool call's SSE answer and keeps it alive while the tool works", async () => {
    const answer = await heldCall(mcp(), modernHeaders('tools/call', 'gated'), {
      ...callGated(1),
      params: { ...callGated(1).params, _meta: { ...envelope, progressToken: 'p1' } },
    });
    expectPrimedAndKeptAlive(answer, UUID);
  });

  it('primes a subscriptions/listen stream and keeps it alive while nothing changes', async () => {
    const stream = await readEvents(mcp(), {
      method: 'POST',
      headers: modernHeaders('subscriptions/listen'),
      body: {
        jsonrpc: '2.0',
        id: 9,
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: envelope },
      },
      untilComment: (_comments, events) => events.length >= 2,
      timeoutMs: 10_000,
    });
    expect(stream.events[0]).toMatchObject(PRIMING);
    expect(stream.events[0].id).toMatch(UUID);
    expect(stream.events[1].json).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
    });
    expect(stream.comments).toBeGreaterThan(0);
  });

  it("primes a session's POST and GET streams and keeps both alive", async () => {
    const init = await request(gateway.url)
      .post('/mcp/')
      .set({ ...ACCEPT, 'Content-Type': 'application/json', ...bearer(KEY_A) })
      .send({ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-11-25' } })
      .expect(200);
    const session = {
      ...ACCEPT,
      ...bearer(KEY_A),
      'Mcp-Session-Id': init.headers['mcp-session-id'],
      'MCP-Protocol-Version': '2025-11-25',
    };
    const answer = await heldCall(mcp(), session, callGated(2));
    expectPrimedAndKeptAlive(answer, /^[0-9a-f-]{36}:\d+$/);
    const stream = await readEvents(mcp(), {
      headers: session,
      untilComment: (_comments, events) => events.length >= 1,
      timeoutMs: 10_000,
    });
    expect(stream.events[0]).toMatchObject(PRIMING);
    expect(stream.comments).toBeGreaterThan(0);
  });

  it('lists every revision it serves in server/discover, and says how long lists stay fresh', async () => {
    await request(gateway.url)
      .put('/v1/resources/note')
      .set(bearer(ROOT_KEY))
      .send({ tenant_id: 'a', uri: 'docs://note', mime_type: 'text/plain', text: 'hi' })
      .expect(200);
    const result = async (method: string, params: { uri?: string } = {}) => {
      const res = await request(gateway.url)
        .post('/mcp/')
        .set({ ...modernHeaders(method, params.uri), 'Content-Type': 'application/json' })
        .send({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope } })
        .expect(200);
      const [message] = rpcMessages(res.headers['content-type'], res.text) as Array<{
        result: Record<string, unknown>;
      }>;
      return message.result;
    };
    expect(await result('server/discover')).toMatchObject({
      supportedVersions: [MODERN, ...LEGACY],
      ttlMs: 3_600_000,
      cacheScope: 'public',
    });
    for (const method of [
      'tools/list',
      'prompts/list',
      'resources/list',
      'resources/templates/list',
    ]) {
      expect({ method, ...(await result(method)) }).toMatchObject({
        method,
        ttlMs: 60_000,
        cacheScope: 'private',
      });
    }
    // A document may change any moment (a run with each turn): never fresh.
    expect(await result('resources/read', { uri: 'docs://note' })).toMatchObject({
      contents: [{ uri: 'docs://note', text: 'hi' }],
      ttlMs: 0,
      cacheScope: 'private',
    });
  });
});

describe('MCP streams without sessions (SVC_MCP_MODE=stateless)', () => {
  const gateway = gatewayForSuite(BACKEND, env('stateless'));
  beforeAll(() => registerGated(gateway));

  it('primes a progress stream of a 2025-11-25 client and keeps it alive while the tool works', async () => {
    const answer = await heldCall(
      `${gateway.url}/mcp/`,
      { ...ACCEPT, ...bearer(KEY_A), 'MCP-Protocol-Version': '2025-11-25' },
      callGated(3),
    );
    expectPrimedAndKeptAlive(answer, /^[0-9a-f-]{36}:\d+$/);
  });
});
