import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { connectMcp, rpcMessages } from './support/mcp-client.js';
import {
  KEY_A,
  KEY_B,
  ROOT_KEY,
  bearer,
  registerTool,
  writeMcpKeysFile,
} from './support/mcp-fixtures.js';
import { mcpScenarios } from './support/mcp-scenarios.js';
import { gatewayForSuite } from './support/suite.js';

const ENV = {
  SVC_API_KEY: ROOT_KEY,
  SVC_KEYS_FILE: writeMcpKeysFile(),
  // Generous: no test here is about the timeout, and a loaded CI machine can be slow.
  SVC_TOOL_TIMEOUT_MS: '15000',
  SVC_TOOL_ALLOWED_HOSTS: '127.0.0.1',
};

const MODERN = '2026-07-28';

/** The per-request `_meta` envelope a 2026-07-28 request carries. */
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-e2e', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function modernPost(url: string, method: string, params: Record<string, unknown>, extra = {}) {
  return request(url)
    .post('/mcp/')
    .set({
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
      'MCP-Protocol-Version': MODERN,
      'Mcp-Method': method,
      ...bearer(KEY_A),
      ...extra,
    })
    .send({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope } });
}

/** Resolves with the next `notifications/tools/list_changed` the client hears. */
function nextListChange(client: NonNullable<Awaited<ReturnType<typeof connectMcp>>['modern']>) {
  return new Promise<void>((resolve) =>
    client.setNotificationHandler('notifications/tools/list_changed', () => resolve()),
  );
}

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise.then(() => 'heard' as const),
    new Promise<'silent'>((resolve) => setTimeout(() => resolve('silent'), ms)),
  ]);

describe.each(BACKENDS)('MCP host, 2026-07-28 with the v2 SDK client (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, ENV);

  mcpScenarios(gateway, 'modern');

  it('offers 2026-07-28 by server/discover, with no session anywhere', async () => {
    const mcp = await connectMcp(`${gateway.url}/mcp/`, bearer(KEY_A), 'modern');
    expect(mcp.modern?.getNegotiatedProtocolVersion()).toBe(MODERN);
    await mcp.close();

    const discover = await modernPost(gateway.url, 'server/discover', {}).expect(200);
    expect(discover.headers['mcp-session-id']).toBeUndefined();
    const [answer] = rpcMessages(discover.headers['content-type'], discover.text) as Array<{
      result: { supportedVersions: string[]; capabilities: { tools: object } };
    }>;
    expect(answer?.result.supportedVersions).toContain(MODERN);
    expect(answer?.result.capabilities.tools).toBeDefined();

    // Every request stands alone: a tool call with no handshake before it.
    const call = await modernPost(
      gateway.url,
      'tools/call',
      { name: 'calculator', arguments: { expression: '6*7' } },
      { 'Mcp-Name': 'calculator' },
    ).expect(200);
    const [result] = rpcMessages(call.headers['content-type'], call.text);
    expect(result).toMatchObject({
      id: 1,
      result: {
        content: [{ type: 'text', text: '42' }],
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'svc-gateway' } },
      },
    });
  });

  it('refuses an Mcp-Method header that disagrees with the body', async () => {
    const res = await modernPost(gateway.url, 'tools/list', {}, { 'Mcp-Method': 'tools/call' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
  });

  it('refuses JSON-RPC batches on revisions that removed them', async () => {
    for (const version of [MODERN, '2025-11-25', '2025-06-18']) {
      const res = await request(gateway.url)
        .post('/mcp/')
        .set({
          Accept: 'application/json, text/event-stream',
          'Content-Type': 'application/json',
          'MCP-Protocol-Version': version,
          ...bearer(KEY_A),
        })
        .send([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }]);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: { code: -32600, message: expect.stringContaining('batches') },
      });
    }
  });

  it("tells a listen stream of its own toolset's changes, not another tenant's", async () => {
    const a = await connectMcp(`${gateway.url}/mcp/`, bearer(KEY_A), 'modern');
    const b = await connectMcp(`${gateway.url}/mcp/`, bearer(KEY_B), 'modern');
    const subscriptions = await Promise.all(
      [a, b].map((mcp) => mcp.modern!.listen({ toolsListChanged: true })),
    );
    const heardA = nextListChange(a.modern!);
    const heardB = nextListChange(b.modern!);
    await registerTool(gateway.url, {
      tenant: 'a',
      toolset: 'default',
      name: 'added_later',
      url: 'http://127.0.0.1:9/none',
    });
    expect(await within(heardA, 5000)).toBe('heard');
    expect(await within(heardB, 500)).toBe('silent');
    expect((await a.client.listTools()).tools.map((tool) => tool.name)).toContain('added_later');
    await Promise.all(subscriptions.map((subscription) => subscription.close()));
    await Promise.all([a.close(), b.close()]);
  });
});

describe('MCP 2026-07-28 on two replicas with no sticky routing (postgres)', () => {
  let fixture: BackendFixture;
  let replicas: RunningGateway[];

  beforeAll(async () => {
    fixture = await createBackend('postgres');
    const env = { ...fixture.env, ...ENV };
    replicas = [await startGateway(env), await startGateway(env)];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await fixture.cleanup();
  });

  it('serves one client from both replicas in turn, and a listen stream hears the other replica', async () => {
    // Each request goes to the next replica: what a round-robin load balancer does.
    let turn = 0;
    const served: string[] = [];
    const roundRobin: typeof fetch = (input, init) => {
      const replica = replicas[turn++ % replicas.length];
      served.push(replica.url);
      const url = new URL(input instanceof Request ? input.url : String(input));
      return fetch(`${replica.url}${url.pathname}${url.search}`, init);
    };
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client(
      { name: 'round-robin', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${replicas[0].url}/mcp/`), {
        fetch: roundRobin,
        requestInit: { headers: bearer(KEY_A) },
      }),
    );
    for (let i = 0; i < 4; i++) {
      const result = await client.callTool({
        name: 'calculator',
        arguments: { expression: `${i}+1` },
      });
      expect(result.content).toEqual([{ type: 'text', text: String(i + 1) }]);
    }
    expect(new Set(served).size).toBe(2);

    const listening = replicas[turn % 2].url;
    const subscription = await client.listen({ toolsListChanged: true });
    const heard = nextListChange(client);
    const other = replicas.find((replica) => replica.url !== listening)!;
    await registerTool(other.url, {
      tenant: 'a',
      toolset: 'default',
      name: 'from_the_other_replica',
      url: 'http://127.0.0.1:9/none',
    });
    expect(await within(heard, 5000)).toBe('heard');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('from_the_other_replica');
    await subscription.close();
    await client.close();
  });
});
