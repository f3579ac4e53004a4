import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { BACKENDS, type Backend } from './support/backends.js';
import { ChatServer } from './support/chat-server.js';
import {
  type FuzzRequest,
  type Plausible,
  type RouteTemplate,
  framingRequest,
  routeRequest,
  serializeRequest,
} from './support/fuzz-requests.js';
import { writeKeysFile, sha256Hex } from './support/keys-file.js';
import { INITIALIZE, mcpHeaders } from './support/mcp-client.js';
import { type RawResponse, sendRaw } from './support/raw-http.js';
import { gatewayForSuite } from './support/suite.js';
import { type ToolEndpoint, startToolEndpoint } from './support/tool-endpoint.js';

/**
 * Property-based fuzzing of every route the gateway mounts and of the MCP endpoint: random,
 * malformed and hostile paths, queries, headers and bodies (and broken HTTP framing). Whatever
 * arrives, the gateway answers without a 5xx, every error is a problem body (JSON-RPC or
 * problem on /mcp), and /healthz keeps answering after every case. The seed is fixed so a run
 * is reproducible; FUZZ_SEED and FUZZ_RUNS_PER_ROUTE explore further.
 */

const ADMIN = 'fuzz-admin-key-0123';
const TENANT_BOUND = 'fuzz-acme-runner-key';
const VIEWER = 'fuzz-acme-viewer-key';
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS_PER_ROUTE ?? 12);
const FRAMING_RUNS = 40;
/** Generous: this is a liveness check, not a latency measurement. */
const ANSWER_TIMEOUT_MS = 10_000;
const HEALTH_TIMEOUT_MS = 5_000;

/** FUZZ_COLLECT=1: report every violation at the end instead of stopping at the first. */
const COLLECT = process.env.FUZZ_COLLECT === '1';
const collected: string[] = [];
function fail(message: string): void {
  if (!COLLECT) throw new Error(message);
  collected.push(message);
}

const isMcp = (path: string) => /^\/mcp\/?$/.test(path);
/** A2A's JSON-RPC binding answers JSON-RPC errors (with the refusal's HTTP status). */
const isA2aRpc = (path: string) => /^\/a2a\/[^/]+\/?$/.test(path);
/** The OpenAI-compatible routes answer OpenAI's error objects, as its SDKs read them. */
const isOpenAi = (path: string) => /^\/v1\/(chat\/completions|models)(\/|$)/.test(path);

/** Every route Express holds, with its `:params` (Nest's own catch-all left out). */
function routeTemplates(app: INestApplication): RouteTemplate[] {
  interface Layer {
    route?: { path: string; methods: Record<string, boolean> };
  }
  const express = app.getHttpAdapter().getInstance() as { router: { stack: Layer[] } };
  const routes = express.router.stack.flatMap((layer) =>
    layer.route && !/[{*]/.test(layer.route.path)
      ? Object.keys(layer.route.methods)
          .filter((method) => method !== '_all')
          .map((method) => ({ method: method.toUpperCase(), path: layer.route!.path }))
      : [],
  );
  // A route a test cannot reach is one the fuzzer silently skips.
  return [...new Map(routes.map((route) => [`${route.method} ${route.path}`, route])).values()];
}

function describeCase(req: FuzzRequest | Buffer, res?: RawResponse): string {
  const sent = Buffer.isBuffer(req)
    ? JSON.stringify(req.toString('latin1').slice(0, 300))
    : `${req.route} as ${req.method} ${JSON.stringify(req.target)} headers=${JSON.stringify(req.headers)} body=${JSON.stringify(req.body?.toString('utf8').slice(0, 300))}`;
  const got = res
    ? ` -> ${res.status} ${res.headers['content-type'] ?? ''} ${JSON.stringify(res.body.toString('utf8').slice(0, 300))}`
    : '';
  return `${sent}${got}`;
}

/** Why an answer breaks the review's standard, or null when it keeps it. */
function violation(
  res: RawResponse,
  options: { mcp: boolean; head: boolean; openai?: boolean },
): string | null {
  if (res.status >= 500) return `answered ${res.status}`;
  if (res.status < 400 || options.head) return null;
  const type = res.headers['content-type'] ?? '';
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString('utf8'));
  } catch {
    return `error body is not JSON (${type})`;
  }
  const record = (body ?? {}) as Record<string, unknown>;
  if (options.mcp && type.startsWith('application/json') && typeof record.error === 'object') {
    return record.jsonrpc === '2.0' ? null : 'JSON-RPC error without jsonrpc: "2.0"';
  }
  // Refusals raised before the route (framing, Expect, the body parser) stay problems.
  if (options.openai && type.startsWith('application/json')) {
    const error = (record.error ?? {}) as Record<string, unknown>;
    if (typeof error.message !== 'string' || typeof error.type !== 'string')
      return 'OpenAI error without message or type';
    return null;
  }
  if (!type.startsWith('application/problem+json')) return `error content type ${type}`;
  if (record.status !== res.status) return `problem status ${String(record.status)}`;
  if (typeof record.type !== 'string' || typeof record.title !== 'string')
    return 'problem without type or title';
  if (typeof record.detail !== 'string') return 'problem without detail';
  return null;
}

async function assertHealthy(port: number): Promise<void> {
  const res = await sendRaw(
    port,
    Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    {
      timeoutMs: HEALTH_TIMEOUT_MS,
    },
  );
  expect(res.status).toBe(200);
}

describe.each(BACKENDS)('fuzz: every route and the MCP endpoint (%s)', (backend: Backend) => {
  let tools: ToolEndpoint;
  const chat = new ChatServer();
  const keysFile = writeKeysFile({
    keys: [
      {
        id: 'fz-runner',
        key_sha256: sha256Hex(TENANT_BOUND),
        tenant_id: 'acme',
        roles: ['runner'],
      },
      { id: 'fz-viewer', key_sha256: sha256Hex(VIEWER), tenant_id: 'acme', roles: ['viewer'] },
    ],
  });
  beforeAll(async () => {
    tools = await startToolEndpoint();
    await chat.start();
  });
  afterAll(async () => {
    await tools.close();
    await chat.close();
  });

  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: ADMIN,
    SVC_KEYS_FILE: keysFile,
    SVC_RATE_LIMIT_PER_MIN: '0',
    SVC_AUTH_FAILURE_LIMIT: '0',
    SVC_TOOL_ALLOWED_HOSTS: '127.0.0.1',
    SVC_TOOL_TIMEOUT_MS: '2000',
    SVC_CHATA_WEBHOOK: chat.slackUrl,
    SVC_CHATB_WEBHOOK: chat.teamsUrl,
    // Both MCP modes get fuzzed, one per backend.
    SVC_MCP_MODE: backend === 'sqlite' ? 'stateful' : 'stateless',
  }));

  const plausible: Plausible = {
    tenants: ['acme', 'beta'],
    keys: { admin: ADMIN, tenantBound: TENANT_BOUND, viewer: VIEWER },
    ids: [],
  };
  let port = 0;
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    const server = gateway.app.getHttpServer() as { address(): AddressInfo };
    port = server.address().port;
    const http = () => request(gateway.url);
    const auth = { Authorization: `Bearer ${ADMIN}` };
    // Real objects to aim at: a tool, a finished run with its session, a card, an MCP session.
    await http()
      .put('/v1/toolsets/fz/tools/fz_tool')
      .set(auth)
      .send({
        tenant_id: 'acme',
        description: 'echo',
        parameters: { type: 'object', properties: { text: { type: 'string' } } },
        endpoint: { url: `${tools.url}/echo` },
      })
      .expect(200);
    const run = await http()
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: 'acme', prompt: '/tool echo {"text":"seed"}' })
      .expect(200);
    plausible.ids.push(run.body.run_id as string, run.body.session_id as string, 'fz', 'fz_tool');
    const card = await http()
      .post('/v1/board/cards')
      .set(auth)
      .send({ tenant_id: 'acme', title: 'seed' });
    if (card.body?.id) plausible.ids.push(String(card.body.id));
    // A live MCP session (stateful mode), so session-bound requests get past the lookup.
    const init = await http()
      .post('/mcp/')
      .set({ ...mcpHeaders(), ...auth })
      .send(INITIALIZE);
    const session = init.headers['mcp-session-id'];
    if (typeof session === 'string') plausible.ids.push(session);
  });

  afterAll(() => {
    if (process.env.FUZZ_VERBOSE) console.log(`${backend} statuses`, Object.fromEntries(statuses));
    if (COLLECT) console.log(`${backend}: ${collected.length} violations\n${collected.join('\n')}`);
    // Most requests are refused by validation; some must get through, or nothing was tested.
    const ok = [...statuses]
      .filter(([status]) => status < 300)
      .reduce((n, [, count]) => n + count, 0);
    expect(ok).toBeGreaterThan(0);
  });

  it('answers every route with a problem body or success, never a 5xx, and stays healthy', async () => {
    const routes = routeTemplates(gateway.app);
    expect(routes.length).toBeGreaterThan(20);
    for (const [index, route] of routes.entries()) {
      await fc.assert(
        fc.asyncProperty(routeRequest([route], plausible, isMcp), async (req) => {
          const raw = serializeRequest(req);
          let res: RawResponse;
          try {
            res = await sendRaw(port, raw, {
              timeoutMs: ANSWER_TIMEOUT_MS,
              head: req.method === 'HEAD',
            });
          } catch (error) {
            return fail(`${describeCase(req)}: ${(error as Error).message}`);
          }
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const why = violation(res, {
            mcp: isMcp(route.path) || (isA2aRpc(route.path) && req.method === 'POST'),
            openai: isOpenAi(route.path),
            head: req.method === 'HEAD',
          });
          if (why) fail(`${why}: ${describeCase(req, res)}`);
          await assertHealthy(port);
        }),
        // A seed per route: the same one everywhere would send every route the same shapes.
        { numRuns: RUNS_PER_ROUTE, seed: SEED + index, endOnFailure: true },
      );
    }
  }, 600_000);

  it('answers broken HTTP framing with a problem body where it answers at all', async () => {
    await fc.assert(
      fc.asyncProperty(framingRequest, async (raw) => {
        let res: RawResponse;
        try {
          res = await sendRaw(port, raw, { timeoutMs: ANSWER_TIMEOUT_MS, endAfterWrite: true });
        } catch (error) {
          // Closing a connection that sent garbage is a fair answer; a stall is not.
          if (/without a response head/.test((error as Error).message)) return;
          return fail(`${describeCase(raw)}: ${(error as Error).message}`);
        }
        const why = violation(res, { mcp: false, head: false });
        if (why) fail(`${why}: ${describeCase(raw, res)}`);
        await assertHealthy(port);
      }),
      { numRuns: FRAMING_RUNS, seed: SEED, endOnFailure: true },
    );
  }, 120_000);
});
