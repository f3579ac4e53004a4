import { beforeAll, describe, expect, it } from '@jest/globals';
import { parseJsonText, parseMessages } from './incoming-messages.js';
import { mcpServerSdk } from '../tools/mcp-sdk.js';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'c', version: '1' },
  },
};

// The MCP host loads the SDK before anything here runs (tools/mcp-sdk.ts).
beforeAll(() => mcpServerSdk.load());

describe('parseJsonText', () => {
  it('is -32700 for malformed JSON', () => {
    expect(parseJsonText('{"a":')).toMatchObject({ status: 400, code: -32700 });
    expect(parseJsonText('[1]')).toEqual({ value: [1] });
  });
});

describe('parseMessages', () => {
  it('accepts a message or a batch and notes initialize and progress', () => {
    expect(parseMessages(initialize)).toMatchObject({ initialize: true, wantsProgress: false });
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', _meta: { progressToken: 5 } },
    };
    const batch = parseMessages([call, { jsonrpc: '2.0', method: 'notifications/initialized' }]);
    expect(batch).toMatchObject({ initialize: false, wantsProgress: true });
    expect(batch).toHaveProperty('body.length', 2);
  });

  it('is -32600 for anything that is not JSON-RPC 2.0, or an empty batch', () => {
    for (const body of [
      {},
      'ping',
      42,
      [],
      [initialize, { id: 1 }],
      { jsonrpc: '2.0', id: {}, method: 'x' },
    ]) {
      expect(parseMessages(body)).toMatchObject({ status: 400, code: -32600 });
    }
  });

  it('is -32600 for initialize in a batch, even a batch of one (it would open a session)', () => {
    for (const body of [[initialize], [initialize, { jsonrpc: '2.0', id: 2, method: 'ping' }]]) {
      expect(parseMessages(body)).toMatchObject({
        status: 400,
        code: -32600,
        message: expect.stringContaining('initialize must be sent alone'),
      });
    }
  });

  it('is -32602 (with the request id) for an initialize with wrong params', () => {
    expect(parseMessages({ ...initialize, params: { protocolVersion: 1 } })).toMatchObject({
      status: 400,
      code: -32602,
      id: 1,
    });
  });
});
