import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { type Server, createServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { loadConfig } from '../platform/config/load-config.js';
import { ProblemException } from '../platform/http/problem.js';
import { TenantEgress } from '../platform/http/tenant-egress.js';
import { HttpToolInvoker } from './http-tool.invoker.js';
import type { DeploymentMark } from '../platform/state/deployment-mark.js';
import { ToolEndpointPolicy } from './tool-endpoint.policy.js';

// Long enough that a loaded CI machine streams 2 MiB inside it (`/stream` must fail on size, not time).
const TIMEOUT_MS = 2000;

/**
 * A real local endpoint: `/ok` echoes, `/hang` never answers, `/stream` sends 2 MiB in chunks,
 * `/fail` answers 500, `/reset` resets the connection, `/close` closes it without an answer,
 * `/headers` answers the request's headers.
 */
function startServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.url === '/hang') return; // closed by closeAllConnections in afterAll
    if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('["');
      for (let i = 0; i < 32; i++) res.write('x'.repeat(64 * 1024));
      return res.end('"]');
    }
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/ok' });
      return res.end();
    }
    if (req.url === '/events' || req.url === '/events-no-result') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': a comment is ignored\n\n');
      res.write('data: {"progress": 1, "total": 2, "message": "half"}\n\n');
      res.write('data: {"log": {"level": "info", "data": {"step": 1}}}\n\n');
      res.write('data: {"log": {"level": "shout", "data": "not a level"}}\n\n');
      if (req.url === '/events') res.write('data: {"result": {"done": true}}\n\n');
      return res.end();
    }
    if (req.url === '/fail') return res.writeHead(500).end('{"error":"secret internals"}');
    if (req.url === '/not-json') return res.end('hello');
    if (req.url === '/headers') return res.end(JSON.stringify(req.headers));
    if (req.url === '/reset') return req.socket.resetAndDestroy();
    if (req.url === '/close') return req.socket.end();
    req.pipe(res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function problemOf(
  promise: Promise<unknown>,
): Promise<{ status: number; slug?: string; detail: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProblemException) {
      return { status: error.getStatus(), slug: error.slug, detail: error.message };
    }
    throw error;
  }
  throw new Error('expected a ProblemException');
}

describe('HttpToolInvoker', () => {
  let endpoint: { server: Server; url: string };
  const config = new ConfigService(
    loadConfig({ SVC_TOOL_TIMEOUT_MS: String(TIMEOUT_MS) }),
  ) as unknown as ConfigService<GatewayConfig, true>;
  // No name resolves (no DNS in unit tests): a name is a resolution failure.
  const egress = new TenantEgress(config, () => Promise.resolve([]));
  // No deployment mark to send in a unit test: the call carries none.
  const mark = { headers: () => Promise.resolve({}) } as unknown as DeploymentMark;
  const invoker = new HttpToolInvoker(config, new ToolEndpointPolicy(egress), egress, mark);
  const target = (path: string, base = endpoint.url) => ({
    tenantId: 't',
    toolset: 's',
    name: 'n',
    url: `${base}${path}`,
  });

  // Failures are logged for the operator; tests look at those lines instead of printing them.
  const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

  beforeAll(async () => {
    endpoint = await startServer();
  });
  afterAll(async () => {
    warn.mockRestore();
    endpoint.server.closeAllConnections();
    endpoint.server.close();
    await egress.onApplicationShutdown();
  });

  it('posts the arguments and returns the JSON answer', async () => {
    await expect(invoker.invoke(target('/ok'), { a: [1, null] })).resolves.toEqual({
      result: { a: [1, null] },
      isError: false,
    });
    await expect(invoker.invoke(target('/ok'), { is_error: true })).resolves.toMatchObject({
      isError: true,
    });
  });

  it('takes isError of an MCP-shaped answer as a tool error, and of plain data as data', async () => {
    const failed = { content: [{ type: 'text', text: 'no such order' }], isError: true };
    await expect(invoker.invoke(target('/ok'), failed)).resolves.toEqual({
      result: failed,
      isError: true,
    });
    await expect(invoker.invoke(target('/ok'), { isError: true })).resolves.toMatchObject({
      isError: false,
    });
  });

  it('reads a streamed answer: progress and log events to the reporter, the result event as the answer', async () => {
    const progress: unknown[] = [];
    const logs: unknown[] = [];
    const reporter = {
      onProgress: (p: unknown) => progress.push(p),
      onLog: (l: unknown) => logs.push(l),
    };
    await expect(invoker.invoke(target('/events'), {}, { reporter })).resolves.toEqual({
      result: { done: true },
      isError: false,
    });
    expect(progress).toEqual([{ progress: 1, total: 2, message: 'half' }]);
    expect(logs).toEqual([{ level: 'info', data: { step: 1 } }]);
    // A stream that never says its result is an unusable answer, like a body that is not JSON.
    expect(await problemOf(invoker.invoke(target('/events-no-result'), {}))).toMatchObject({
      status: 502,
      slug: 'tool-failed',
    });
  });

  it('sends the idempotency key as Idempotency-Key, and none without one', async () => {
    const headers = async (idempotencyKey?: string) =>
      (
        (await invoker.invoke(target('/headers'), {}, { idempotencyKey })).result as {
          [name: string]: string;
        }
      )['idempotency-key'];
    expect(await headers('run-1/2/call_a')).toBe('run-1/2/call_a');
    expect(await headers(undefined)).toBeUndefined();
    // A model's call id may hold anything: such a key travels as its stable digest.
    const unfit = await headers('run-1/1/call\n\u00e9');
    expect(unfit).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    expect(await headers('run-1/1/call\n\u00e9')).toBe(unfit);
  });

  it('times out with 504 after tools.timeoutMs', async () => {
    const started = Date.now();
    expect(await problemOf(invoker.invoke(target('/hang'), {}))).toMatchObject({
      status: 504,
      slug: 'tool-timeout',
    });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1000);
  });

  it("rejects with the caller's abort reason, not as a tool failure", async () => {
    const controller = new AbortController();
    const call = invoker.invoke(target('/hang'), {}, { signal: controller.signal });
    const reason = new Error('run cancelled');
    setTimeout(() => controller.abort(reason), 20);
    await expect(call).rejects.toBe(reason);
  });

  it('answers every failure with the same 502, and logs the reason for the operator', async () => {
    warn.mockClear();
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const failures = [
      target('/', closed),
      target('/reset'),
      target('/close'),
      target('/fail'),
      target('/redirect'),
      target('/not-json'),
      target('/stream'),
      target('/', 'http://nowhere.test'),
    ];
    for (const failure of failures) {
      expect([failure.url, await problemOf(invoker.invoke(failure, {}))]).toEqual([
        failure.url,
        { status: 502, slug: 'tool-failed', detail: 'tool endpoint unreachable' },
      ]);
    }
    const reasons = warn.mock.calls.map(([fields]) => (fields as { reason: string }).reason);
    expect(reasons).toEqual([
      'ECONNREFUSED',
      expect.stringMatching(/^(ECONNRESET|UND_ERR_SOCKET)$/),
      expect.stringMatching(/^(ECONNRESET|UND_ERR_SOCKET)$/),
      'answered HTTP 500',
      'answered HTTP 302',
      'answered a body that is not JSON',
      'answered more than 1048576 bytes',
      'ENOTFOUND',
    ]);
    // The log names the endpoint by its origin only: paths and queries may hold secrets.
    expect(warn.mock.calls[3][0]).toMatchObject({ endpoint: endpoint.url, tool: 'n' });
  });
});
