import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { INITIALIZE, connectMcp, mcpHeaders, rpcMessages } from './support/mcp-client.js';
import { KEY_A, KEY_B, ROOT_KEY, bearer, writeMcpKeysFile } from './support/mcp-fixtures.js';
import { mcpScenarios } from './support/mcp-scenarios.js';
import { gatewayForSuite } from './support/suite.js';

const ENV = {
  SVC_API_KEY: ROOT_KEY,
  SVC_KEYS_FILE: writeMcpKeysFile(),
  // Generous: no test here is about the timeout, and a loaded CI machine can be slow.
  SVC_TOOL_TIMEOUT_MS: '15000',
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

  it('declares no list changes, subscriptions or log level: nothing here could keep them', async () => {
    const mcp = await connectMcp(`${gateway.url}/mcp/`, bearer(KEY_A));
    const capabilities = mcp.client.getServerCapabilities();
    expect(capabilities).toMatchObject({ tools: {}, prompts: {}, resources: {} });
    expect(capabilities?.logging).toBeUndefined();
    expect(capabilities?.completions).toEqual({});
    expect(JSON.stringify(capabilities)).not.toMatch(/listChanged|subscribe/);
    await mcp.close();
  });

  it("never lets one client's log level reach another client, of any tenant", async () => {
    const post = (key: string, body: object, version = '2025-11-25') =>
      request(gateway.url)
        .post('/mcp/')
        .set({ ...mcpHeaders({ 'MCP-Protocol-Version': version }), ...bearer(key) })
        .send(body);
    // A level has nowhere to live without a session: refused, so the client knows.
    for (let i = 0; i < 3; i++) {
      const set = await post(KEY_A, {
        jsonrpc: '2.0',
        id: 1,
        method: 'logging/setLevel',
        params: { level: 'debug' },
      }).expect(200);
      expect(set.body).toMatchObject({ id: 1, error: { code: -32601 } });
    }
    // Another tenant's calls, whichever Server they meet, are told nothing but progress.
    for (let i = 0; i < 3; i++) {
      const call = await post(KEY_B, {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'x' }, _meta: { progressToken: `p${i}` } },
      }).expect(200);
      const messages = rpcMessages(call.headers['content-type'], call.text) as Array<{
        method?: string;
      }>;
      expect(messages.map((message) => message.method ?? 'answer')).toEqual([
        'notifications/progress',
        'notifications/progress',
        'answer',
      ]);
    }
  });

  it('opens a progress stream with a priming event for 2025-11-25 clients, none for older', async () => {
    const call = (version: string) =>
      request(gateway.url)
        .post('/mcp/')
        .set({ ...mcpHeaders({ 'MCP-Protocol-Version': version }), ...bearer(KEY_A) })
        .send({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: 'x' }, _meta: { progressToken: 'p' } },
        })
        .expect(200);
    const current = await call('2025-11-25');
    expect(current.text).toMatch(/^id: \S+\nretry: 1000\ndata: \n\n/);
    const older = await call('2025-06-18');
    expect(older.text).toMatch(/^event: message\n/);
  });
});
