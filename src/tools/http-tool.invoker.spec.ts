import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigService } from '@nestjs/config';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../config/gateway-config.js';
import { ProblemException } from '../http/problem.js';
import { ToolEndpointPolicy } from './tool-endpoint.policy.js';
import { HttpToolInvoker } from './http-tool.invoker.js';

const TIMEOUT_MS = 300;

/** A real local endpoint: `/ok` echoes, `/hang` never answers, `/stream` sends 2 MiB in chunks. */
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
    req.pipe(res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

async function problemOf(promise: Promise<unknown>): Promise<{ status: number; slug?: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProblemException) return { status: error.getStatus(), slug: error.slug };
    throw error;
  }
  throw new Error('expected a ProblemException');
}

describe('HttpToolInvoker', () => {
  let endpoint: { server: Server; url: string };
  const config = new ConfigService({ tools: { timeoutMs: TIMEOUT_MS } });
  const typed = config as unknown as ConfigService<GatewayConfig, true>;
  const invoker = new HttpToolInvoker(typed, new ToolEndpointPolicy(typed));
  const target = (path: string) => ({
    tenantId: 't',
    toolset: 's',
    name: 'n',
    url: `${endpoint.url}${path}`,
  });

  beforeAll(async () => {
    endpoint = await startServer();
  });
  afterAll(() => {
    endpoint.server.closeAllConnections();
    endpoint.server.close();
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

  it('times out with 504 after tools.timeoutMs', async () => {
    const started = Date.now();
    expect(await problemOf(invoker.invoke(target('/hang'), {}))).toEqual({
      status: 504,
      slug: 'tool-timeout',
    });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1000);
  });

  it("rejects with the caller's abort reason, not as a tool failure", async () => {
    const controller = new AbortController();
    const call = invoker.invoke(target('/hang'), {}, controller.signal);
    const reason = new Error('run cancelled');
    setTimeout(() => controller.abort(reason), 20);
    await expect(call).rejects.toBe(reason);
  });

  it('refuses a streamed answer over 1 MiB and a redirect with 502', async () => {
    expect(await problemOf(invoker.invoke(target('/stream'), {}))).toEqual({
      status: 502,
      slug: 'tool-failed',
    });
    expect(await problemOf(invoker.invoke(target('/redirect'), {}))).toEqual({
      status: 502,
      slug: 'tool-failed',
    });
  });
});
