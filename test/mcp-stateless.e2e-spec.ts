import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { INITIALIZE, connectMcp, mcpHeaders, rpcMessages } from './support/mcp-client.js';
import { KEY_A, ROOT_KEY, bearer, writeMcpKeysFile } from './support/mcp-fixtures.js';
import { mcpScenarios } from './support/mcp-scenarios.js';
import { gatewayForSuite } from './support/suite.js';

const ENV = {
  SVC_API_KEY: ROOT_KEY,
  SVC_KEYS_FILE: writeMcpKeysFile(),
  SVC_TOOL_TIMEOUT_MS: '1000',
  SVC_MCP_MODE: 'stateless',
};

describe.each(BACKENDS)('MCP host, stateless (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, ENV);

  mcpScenarios(gateway);

  it('answers every POST on its own: no session id, plain JSON, GET and DELETE 405', async () => {
    const mcp = await connectMcp(`${gateway.url}/mcp/`, bearer(KEY_A));
    expect(mcp.transport.sessionId).toBeUndefined();
    await mcp.close();

    const http = () => request(gateway.url);
    const headers = { ...mcpHeaders(), ...bearer(KEY_A) };
    const init = await http().post('/mcp/').set(headers).send(INITIALIZE).expect(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    expect(init.headers['content-type']).toMatch(/^application\/json/);
    // Without initialize first: each request stands alone (any replica may answer it).
    const call = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' } },
    };
    const called = await http().post('/mcp/').set(headers).send(call).expect(200);
    expect(called.body).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: { content: [{ type: 'text', text: 'hi' }], isError: false },
    });
    // Asking for progress switches that answer to an SSE stream.
    const withProgress = { ...call, params: { ...call.params, _meta: { progressToken: 'p1' } } };
    const streamed = await http().post('/mcp/').set(headers).send(withProgress).expect(200);
    expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(rpcMessages(streamed.headers['content-type'], streamed.text)).toEqual([
      expect.objectContaining({ method: 'notifications/progress' }),
      expect.objectContaining({ method: 'notifications/progress' }),
      expect.objectContaining({ id: 3, result: expect.objectContaining({ isError: false }) }),
    ]);
    for (const method of ['get', 'delete'] as const) {
      const res = await http()[method]('/mcp/').set(headers);
      expect({ status: res.status, allow: res.headers.allow }).toEqual({
        status: 405,
        allow: 'POST',
      });
    }
  });
});
