import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { INITIALIZE, connectMcp, mcpHeaders } from './support/mcp-client.js';
import {
  KEY_A,
  ROOT_KEY,
  RUNNER_KEY,
  VIEWER_KEY,
  bearer,
  writeMcpKeysFile,
} from './support/mcp-fixtures.js';
import { mcpScenarios } from './support/mcp-scenarios.js';
import { gatewayForSuite } from './support/suite.js';

const ENV = {
  SVC_API_KEY: ROOT_KEY,
  SVC_KEYS_FILE: writeMcpKeysFile(),
  // Generous: no test here is about the timeout, and a loaded CI machine can be slow.
  SVC_TOOL_TIMEOUT_MS: '15000',
};

describe.each(BACKENDS)('MCP host with sessions (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, ENV);

  mcpScenarios(gateway);

  it('keeps a session per client: Mcp-Session-Id, the SSE stream, DELETE ends it', async () => {
    const mcp = await connectMcp(`${gateway.url}/mcp`, bearer(KEY_A));
    const sessionId = mcp.transport.sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const session = mcpHeaders({ ...bearer(KEY_A), 'Mcp-Session-Id': sessionId! });

    // Another key cannot use it; the owner can.
    const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };
    const stolen = await request(gateway.url)
      .post('/mcp/')
      .set({ ...session, ...bearer(RUNNER_KEY), 'X-Tenant-Id': 'a' })
      .send(ping);
    expect({ status: stolen.status, code: stolen.body.error?.code }).toEqual({
      status: 404,
      code: -32001,
    });
    const unsupported = await request(gateway.url)
      .post('/mcp/')
      .set({ ...session, 'MCP-Protocol-Version': '1999-01-01' })
      .send(ping);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error.message).toMatch(/Unsupported protocol version/);

    await mcp.transport.terminateSession();
    await mcp.close();
    const gone = await request(gateway.url).post('/mcp/').set(session).send(ping);
    expect({ status: gone.status, code: gone.body.error?.code }).toEqual({
      status: 404,
      code: -32001,
    });
  });

  it('needs tools:call and a session for anything but initialize', async () => {
    const viewer = await request(gateway.url)
      .post('/mcp/')
      .set({ ...mcpHeaders(), ...bearer(VIEWER_KEY) })
      .send(INITIALIZE);
    expect(viewer.status).toBe(403);
    // RFC 6750 §3.1: a valid key short of a permission is insufficient_scope, naming it.
    expect(viewer.headers['www-authenticate']).toBe(
      'Bearer realm="svc", error="insufficient_scope", error_description="this key lacks the permission tools:call", scope="tools:call"',
    );
    expect(viewer.body).toMatchObject({
      error: { code: -32000, data: { type: 'urn:svc:problem:forbidden', status: 403 } },
    });
    const sessionless = await request(gateway.url)
      .post('/mcp/')
      .set({ ...mcpHeaders(), ...bearer(KEY_A) })
      .send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(sessionless.status).toBe(400);
    expect(sessionless.body.error.message).toMatch(/Mcp-Session-Id/);
    const stream = await request(gateway.url)
      .get('/mcp/')
      .set({ ...mcpHeaders(), ...bearer(KEY_A) });
    expect(stream.status).toBe(400);
  });
});
