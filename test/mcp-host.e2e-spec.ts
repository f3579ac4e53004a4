import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { LegacyTransports } from '../src/mcp/legacy/legacy-transports.js';
import type { StatefulTransports } from '../src/mcp/legacy/stateful.transports.js';
import { type BackendFixture, createBackend } from './support/backends.js';
import type { RunningGateway } from './support/gateway.js';
import { INITIALIZE, connectMcp, mcpHeaders } from './support/mcp-client.js';
import { startGatewayWithMcpAt } from './support/mcp-fixtures.js';

// Mounting and session bounds do not depend on the state backend: sqlite only.
describe('a standalone MCP host: its own path, no default tenant, bounded sessions', () => {
  let fixture: BackendFixture;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fixture = await createBackend('sqlite');
    gateway = await startGatewayWithMcpAt(
      { ...fixture.env, SVC_MCP_MAX_SESSIONS: '2', SVC_MCP_SESSION_IDLE_MS: '1000' },
      '/tools-host',
    );
  });
  afterAll(async () => {
    await gateway.close();
    await fixture.cleanup();
  });

  it('mounts a standalone host at its own path with its own health route', async () => {
    await request(gateway.url).get('/tools-host/health').expect(200, { status: 'ok' });
    await request(gateway.url).get('/mcp/health').expect(404);
    const mcp = await connectMcp(`${gateway.url}/tools-host`, { 'X-Tenant-Id': 'acme' });
    expect(
      await mcp.client.callTool({ name: 'calculator', arguments: { expression: '6*7' } }),
    ).toMatchObject({
      content: [{ type: 'text', text: '42' }],
    });
    await mcp.close();
    const malformed = await request(gateway.url).post('/tools-host').set(mcpHeaders()).send('{');
    expect({ status: malformed.status, code: malformed.body.error?.code }).toEqual({
      status: 400,
      code: -32700,
    });
  });

  it('says a tenant is needed when none is named and SVC_TENANT is unset', async () => {
    const res = await request(gateway.url).post('/tools-host/').set(mcpHeaders()).send(INITIALIZE);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/tenant is required/),
    });
  });

  it('keeps at most SVC_MCP_MAX_SESSIONS sessions and closes idle ones', async () => {
    const sessions = gateway.app.get<LegacyTransports, StatefulTransports>(LegacyTransports);
    const open = async (): Promise<string> => {
      const res = await request(gateway.url)
        .post('/tools-host')
        .set(mcpHeaders({ 'X-Tenant-Id': 'acme' }))
        .send(INITIALIZE)
        .expect(200);
      return res.headers['mcp-session-id'];
    };
    const ping = (id: string) =>
      request(gateway.url)
        .post('/tools-host')
        .set(mcpHeaders({ 'X-Tenant-Id': 'acme', 'Mcp-Session-Id': id }))
        .send({ jsonrpc: '2.0', id: 9, method: 'ping' });
    const first = await open();
    const second = await open();
    await ping(first).expect(200); // `second` is now the least recently used
    const third = await open();
    expect(sessions.size).toBe(2);
    await ping(second).expect(404);
    await ping(first).expect(200);
    await ping(third).expect(200);
    // Idle for 1 s, found by the sweep that runs every second.
    for (let waited = 0; sessions.size > 0 && waited < 5000; waited += 100) await sleep(100);
    expect(sessions.size).toBe(0);
    await ping(first).expect(404);
  });
});

describe('MCP sessions at shutdown', () => {
  it('ends the open SSE streams when the app closes, so closing does not wait on them', async () => {
    const fixture = await createBackend('sqlite');
    const gateway = await startGatewayWithMcpAt({ ...fixture.env, SVC_TENANT: 'acme' }, '/mcp');
    try {
      const init = await fetch(`${gateway.url}/mcp`, {
        method: 'POST',
        headers: mcpHeaders(),
        body: JSON.stringify(INITIALIZE),
      });
      await init.text();
      const session = {
        ...mcpHeaders(),
        'Mcp-Session-Id': init.headers.get('mcp-session-id') ?? '',
      };
      const stream = await fetch(`${gateway.url}/mcp`, { headers: session });
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const started = Date.now();
      await gateway.close();
      expect(Date.now() - started).toBeLessThan(2000);
      await stream.text(); // the stream has ended
    } finally {
      await fixture.cleanup();
    }
  });
});
