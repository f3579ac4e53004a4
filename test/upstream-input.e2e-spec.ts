import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  LOG_LEVEL_META_KEY,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { type AskingServer, startAskingServer } from './support/asking-server.js';
import { type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';

/**
 * An upstream MCP server that asks the client for input (elicitation, sampling, roots) behind
 * two replicas on PostgreSQL: the questions reach whichever client called, in either protocol
 * era, and its answers reach the upstream; a caller with no client to ask gets a tool error.
 */
const ROOT = 'upstream-input-root-key';
const TENANT = 'acme';
const headers = { Authorization: `Bearer ${ROOT}`, 'X-Tenant-Id': TENANT, 'X-Toolset': 'ask' };
type Text = { type: string; text?: string };

/** What the test's "user" answers: a name per question, a model's line, one root. */
const NAMES: Record<string, string> = { 'first?': 'Ada', 'second?': 'Lin' };
const SAMPLED = 'a sampled line';
const ROOTS = [{ uri: 'file:///work/project', name: 'project' }];

const textOf = (result: object) =>
  ((result as { content?: Text[] }).content ?? []).map((block) => block.text ?? '').join('');

let asking: AskingServer;
let fixture: BackendFixture;
let replicas: RunningGateway[];

beforeAll(async () => {
  asking = await startAskingServer();
  fixture = await createBackend('postgres');
  const env = { ...fixture.env, SVC_API_KEY: ROOT, SVC_TOOL_ALLOWED_HOSTS: '127.0.0.1' };
  replicas = [await startGateway(env), await startGateway(env)];
  await request(replicas[0].url)
    .put('/v1/toolsets/ask/upstreams/asking')
    .set(headers)
    .send({ tenant_id: TENANT, url: asking.url })
    .expect(200);
});
afterAll(async () => {
  await Promise.all((replicas ?? []).map((replica) => replica.close()));
  await fixture?.cleanup();
  await asking?.close();
});

describe('an upstream MCP server asking the client for input, through the gateway', () => {
  it('2026-07-28: the client answers each round and retries, on whichever replica', async () => {
    let turn = 0;
    const served: string[] = [];
    const roundRobin: typeof fetch = (input, init) => {
      const replica = replicas[turn++ % replicas.length];
      served.push(replica.url);
      const url = new URL(input instanceof Request ? input.url : String(input));
      return fetch(`${replica.url}${url.pathname}${url.search}`, init);
    };
    const client = new ModernClient(
      { name: 'asked', version: '1.0.0' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        capabilities: { elicitation: {}, sampling: {}, roots: {} },
      },
    );
    client.setRequestHandler('elicitation/create', (req) => ({
      action: 'accept' as const,
      content: { name: NAMES[req.params.message] ?? '?' },
    }));
    client.setRequestHandler('sampling/createMessage', () => ({
      role: 'assistant' as const,
      content: { type: 'text' as const, text: SAMPLED },
      model: 'test-model',
    }));
    client.setRequestHandler('roots/list', () => ({ roots: ROOTS }));
    await client.connect(
      new ModernTransport(new URL(`${replicas[0].url}/mcp/`), {
        fetch: roundRobin,
        requestInit: { headers },
      }),
    );
    const before = asking.calls();
    const twice = await client.callTool({ name: 'asking_test_two_rounds', arguments: {} });
    expect(textOf(twice)).toBe('first=Ada, second=Lin');
    // The first call and two retries with answers, the upstream's state carried by the client.
    expect(asking.calls() - before).toBe(3);
    const sampled = await client.callTool({
      name: 'asking_test_sampling',
      arguments: { prompt: 'say something' },
    });
    expect(textOf(sampled)).toBe(`LLM response: ${SAMPLED}`);
    const roots = await client.callTool({ name: 'asking_test_roots', arguments: {} });
    expect(textOf(roots)).toBe(`roots: ${ROOTS[0].uri}`);
    expect(new Set(served).size).toBe(2);
    await client.close();
  });

  it('2025-11-25 session: the questions arrive as requests on the open call', async () => {
    const client = new Client(
      { name: 'asked-legacy', version: '1.0.0' },
      { capabilities: { elicitation: {}, sampling: {}, roots: {} } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      const message = 'message' in req.params ? req.params.message : '';
      asked.push(message);
      return Promise.resolve({ action: 'accept', content: { name: NAMES[message] ?? '?' } });
    });
    client.setRequestHandler(CreateMessageRequestSchema, () =>
      Promise.resolve({
        role: 'assistant',
        content: { type: 'text', text: SAMPLED },
        model: 'test-model',
      }),
    );
    client.setRequestHandler(ListRootsRequestSchema, () => Promise.resolve({ roots: ROOTS }));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${replicas[1].url}/mcp/`), {
        requestInit: { headers },
      }),
    );
    const twice = await client.callTool({ name: 'asking_test_two_rounds', arguments: {} });
    expect(textOf(twice)).toBe('first=Ada, second=Lin');
    expect(asked).toEqual(['first?', 'second?']);
    const sampled = await client.callTool({
      name: 'asking_test_sampling',
      arguments: { prompt: 'say something' },
    });
    expect(textOf(sampled)).toBe(`LLM response: ${SAMPLED}`);
    const roots = await client.callTool({ name: 'asking_test_roots', arguments: {} });
    expect(textOf(roots)).toBe(`roots: ${ROOTS[0].uri}`);
    await client.close();
  });

  it('a client that cannot answer gets a tool error, and so does a caller with no client', async () => {
    const client = new Client({ name: 'mute', version: '1.0.0' }, { capabilities: {} });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${replicas[0].url}/mcp/`), {
        requestInit: { headers },
      }),
    );
    const refused = await client.callTool({
      name: 'asking_test_elicitation',
      arguments: { message: 'who are you?' },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      'upstream MCP server asked for input (elicitation/create) that only an MCP client declaring it can give; this caller cannot',
    );
    await client.close();

    const rest = await request(replicas[1].url)
      .post('/v1/tools/ask/asking_test_elicitation')
      .set(headers)
      .send({ tenant_id: TENANT, arguments: { message: 'who are you?' } })
      .expect(200);
    expect(rest.body).toMatchObject({
      is_error: true,
      tool: 'asking_test_elicitation',
    });
    expect(rest.body.result).toMatch(
      /^upstream MCP server asked for input \(elicitation\/create\)/,
    );
  });

  it("an upstream's log messages reach the client that listens, at its level, in both eras", async () => {
    const heard: Array<{ level: string; data: unknown; logger?: string }> = [];
    const legacy = new Client({ name: 'listening', version: '1.0.0' });
    legacy.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
      heard.push(params);
    });
    await legacy.connect(
      new StreamableHTTPClientTransport(new URL(`${replicas[0].url}/mcp/`), {
        requestInit: { headers },
      }),
    );
    await legacy.setLoggingLevel('info');
    const result = await legacy.callTool({ name: 'asking_test_logging', arguments: {} });
    expect(textOf(result)).toBe('logged');
    const fromTool = (entry: { logger?: string }) => entry.logger === 'tool:asking_test_logging';
    expect(heard.filter(fromTool)).toEqual([
      { level: 'info', data: 'info from the upstream', logger: 'tool:asking_test_logging' },
      { level: 'warning', data: 'warning from the upstream', logger: 'tool:asking_test_logging' },
    ]);
    await legacy.close();

    const modernHeard: Array<{ level: string; data: unknown; logger?: string }> = [];
    const modern = new ModernClient(
      { name: 'listening-modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    modern.setNotificationHandler('notifications/message', ({ params }) => {
      modernHeard.push(params);
    });
    await modern.connect(
      new ModernTransport(new URL(`${replicas[1].url}/mcp/`), { requestInit: { headers } }),
    );
    // 2026-07-28 has no logging/setLevel: the request names the level it wants.
    await modern.callTool({
      name: 'asking_test_logging',
      arguments: {},
      _meta: { [LOG_LEVEL_META_KEY]: 'warning' },
    });
    expect(modernHeard.filter(fromTool)).toEqual([
      { level: 'warning', data: 'warning from the upstream', logger: 'tool:asking_test_logging' },
    ]);
    await modern.close();
  });

  it('a client that does not listen makes no connection of its own', async () => {
    const quiet = new Client({ name: 'quiet', version: '1.0.0' });
    await quiet.connect(
      new StreamableHTTPClientTransport(new URL(`${replicas[0].url}/mcp/`), {
        requestInit: { headers },
      }),
    );
    const before = asking.connections();
    for (let i = 0; i < 3; i++) {
      await quiet.callTool({ name: 'asking_test_logging', arguments: {} });
    }
    expect(asking.connections() - before).toBe(0);
    await quiet.close();
  });
});
