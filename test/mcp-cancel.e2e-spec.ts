import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { type BackendFixture, createBackend } from './support/backends.js';
import { type GatedEndpoint, startGatedEndpoint } from './support/gated-endpoint.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { type McpEra, connectMcp, mcpHeaders } from './support/mcp-client.js';
import { KEY_A, ROOT_KEY, bearer, registerTool, writeMcpKeysFile } from './support/mcp-fixtures.js';

const within = (promise: Promise<void>, ms: number) =>
  Promise.race([
    promise.then(() => 'stopped' as const),
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), ms)),
  ]);

/**
 * A client that cancels a slow tool call stops it, with no session to carry the cancellation:
 * the tool's HTTP request is dropped within moments, whichever replica runs it.
 */
describe('MCP cancellation without sessions, two replicas (postgres)', () => {
  let fixture: BackendFixture;
  let replicas: RunningGateway[];
  let slow: GatedEndpoint;

  beforeAll(async () => {
    slow = await startGatedEndpoint();
    fixture = await createBackend('postgres');
    const env = {
      ...fixture.env,
      SVC_API_KEY: ROOT_KEY,
      SVC_KEYS_FILE: writeMcpKeysFile(),
      SVC_TOOL_TIMEOUT_MS: '30000',
      SVC_MCP_MODE: 'stateless',
      SVC_TOOL_ALLOWED_HOSTS: '127.0.0.1',
    };
    replicas = [await startGateway(env), await startGateway(env)];
    await registerTool(replicas[0].url, {
      tenant: 'a',
      toolset: 'default',
      name: 'slow',
      url: slow.url,
    });
  });
  afterAll(async () => {
    slow.release();
    await Promise.all(replicas.map((replica) => replica.close()));
    await fixture.cleanup();
    await slow.close();
  });

  it('stops the call on one replica when notifications/cancelled reaches the other', async () => {
    const headers = { ...mcpHeaders({ 'MCP-Protocol-Version': '2025-11-25' }), ...bearer(KEY_A) };
    const call = request(replicas[0].url)
      .post('/mcp/')
      .set(headers)
      .send({
        jsonrpc: '2.0',
        id: 41,
        method: 'tools/call',
        params: { name: 'slow', arguments: {} },
      })
      .then((res) => res);
    await slow.arrived();
    const stopped = slow.abandoned();
    await request(replicas[1].url)
      .post('/mcp/')
      .set(headers)
      .send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 41, reason: 'changed my mind' },
      })
      .expect(202);
    expect(await within(stopped, 3000)).toBe('stopped');
    // The exchange still ends, with an answer the cancelling client ignores.
    const answer = await call;
    expect(answer.body).toMatchObject({
      id: 41,
      error: { message: expect.stringContaining('cancelled') },
    });
  });

  it.each<McpEra>(['legacy', 'modern'])(
    'stops the call when the %s SDK client aborts it',
    async (era) => {
      slow.release();
      const mcp = await connectMcp(`${replicas[1].url}/mcp/`, bearer(KEY_A), era);
      const controller = new AbortController();
      const call = mcp.client
        .callTool({ name: 'slow', arguments: {} }, { signal: controller.signal })
        .catch((error: unknown) => error);
      await slow.arrived();
      const stopped = slow.abandoned();
      setTimeout(() => controller.abort(), 300);
      expect(await within(stopped, 3000)).toBe('stopped');
      expect(await call).toBeInstanceOf(Error);
      await mcp.close();
    },
  );
});
