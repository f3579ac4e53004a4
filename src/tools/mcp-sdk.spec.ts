import { describe, expect, it } from '@jest/globals';
import * as client from '@modelcontextprotocol/client';
import * as server from '@modelcontextprotocol/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  ProtocolErrorCode,
  mcpServerSdk,
} from './mcp-sdk.js';

describe('the MCP SDK, loaded on first use', () => {
  it("copies the SDK's protocol constants", () => {
    for (const [name, code] of Object.entries(ProtocolErrorCode)) {
      expect(server.ProtocolErrorCode[name as keyof typeof server.ProtocolErrorCode]).toBe(code);
      expect(client.ProtocolErrorCode[name as keyof typeof client.ProtocolErrorCode]).toBe(code);
    }
    expect(LOG_LEVEL_META_KEY).toBe(server.LOG_LEVEL_META_KEY);
    expect(CLIENT_CAPABILITIES_META_KEY).toBe(server.CLIENT_CAPABILITIES_META_KEY);
    expect(CLIENT_CAPABILITIES_META_KEY).toBe(client.CLIENT_CAPABILITIES_META_KEY);
  });

  it('loads the server SDK itself', async () => {
    expect((await mcpServerSdk.load()).Server).toBe(server.Server);
    expect(mcpServerSdk.get()).toBe(await mcpServerSdk.load());
  });
});
