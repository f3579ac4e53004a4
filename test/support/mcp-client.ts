import { expect } from '@jest/globals';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Implementation, Tool } from '@modelcontextprotocol/sdk/types.js';

/** Which SDK speaks to the host: v1 over 2025-11-25 sessions, or v2 over 2026-07-28. */
export type McpEra = 'legacy' | 'modern';

/** What the scenarios call, the same for both SDK clients. */
export interface McpToolsClient {
  listTools(): Promise<{ tools: Tool[] }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    options?: { onprogress?: (progress: { progress: number }) => void; signal?: AbortSignal },
  ): Promise<CallToolResult>;
  getServerVersion(): Implementation | undefined;
  getServerCapabilities(): Record<string, unknown> | undefined;
}

export interface McpConnection {
  era: McpEra;
  client: McpToolsClient;
  /** The v1 client's transport (legacy era only): session id, termination. */
  transport: StreamableHTTPClientTransport;
  /** The v2 client itself (modern era only). */
  modern?: ModernClient;
  /** The v1 client itself (legacy era only). */
  legacy?: Client;
  close(): Promise<void>;
}

/** The key every 2026-07-28 result carries (the server's identity); asserted once, not per result. */
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

function withoutServerInfo<T extends { _meta?: Record<string, unknown> }>(result: T): T {
  if (!result._meta || !(SERVER_INFO in result._meta)) return result;
  const { [SERVER_INFO]: _, ...meta } = result._meta;
  const { _meta, ...rest } = result;
  return (Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest) as T;
}

/**
 * The official SDK client over Streamable HTTP, connected to the MCP host at `url`
 * (`http://127.0.0.1:<port>/mcp/`), sending `headers` on every request: v1 with the
 * initialize handshake (`legacy`), or v2 pinned to 2026-07-28 (`modern`, stateless, found
 * with `server/discover`).
 */
export async function connectMcp(
  url: string,
  headers: Record<string, string> = {},
  era: McpEra = 'legacy',
): Promise<McpConnection> {
  const legacyTransport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
  });
  if (era === 'modern') {
    const client = new ModernClient(
      { name: 'svc-e2e', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new ModernTransport(new URL(url), { requestInit: { headers } }));
    const tools: McpToolsClient = {
      listTools: async () => withoutServerInfo(await client.listTools()) as { tools: Tool[] },
      callTool: async (params, options) =>
        withoutServerInfo(await client.callTool(params, options)) as CallToolResult,
      getServerVersion: () => client.getServerVersion(),
      getServerCapabilities: () => client.getServerCapabilities(),
    };
    return {
      era,
      client: tools,
      transport: legacyTransport,
      modern: client,
      close: () => client.close(),
    };
  }
  const client = new Client({ name: 'svc-e2e', version: '1.0.0' });
  await client.connect(legacyTransport);
  const tools: McpToolsClient = {
    listTools: () => client.listTools(),
    callTool: async (params, options) =>
      (await client.callTool(params, undefined, options)) as CallToolResult,
    getServerVersion: () => client.getServerVersion(),
    getServerCapabilities: () => client.getServerCapabilities(),
  };
  return {
    era,
    client: tools,
    transport: legacyTransport,
    legacy: client,
    close: () => client.close(),
  };
}

/** Headers of a raw MCP POST (supertest), after `initialize` when a session id is given. */
export function mcpHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    Accept: 'application/json, text/event-stream',
    'Content-Type': 'application/json',
    'MCP-Protocol-Version': '2025-06-18',
    ...extra,
  };
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw-e2e', version: '1.0.0' },
  },
};

/** The JSON-RPC messages of a response that may be JSON or an SSE stream (`data:` lines). */
export function rpcMessages(contentType: string | undefined, text: string): unknown[] {
  if (contentType?.startsWith('text/event-stream')) {
    return (
      text
        .split('\n')
        // A priming event's data is empty (SEP-1699).
        .filter((line) => line.startsWith('data: ') && line.length > 6)
        .map((line) => JSON.parse(line.slice(6)) as unknown)
    );
  }
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed : [parsed];
}

export async function toolNames(mcp: McpConnection): Promise<string[]> {
  return (await mcp.client.listTools()).tools.map((tool) => tool.name);
}

/** The JSON-RPC error `promise` rejects with (fails the test if it resolves), from either SDK. */
export async function rpcError(
  promise: Promise<unknown>,
): Promise<{ code: number; message: string; data?: unknown }> {
  const error = await promise.then(
    () => new Error('expected a JSON-RPC error'),
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ code: expect.any(Number) });
  return error as { code: number; message: string; data?: unknown };
}
