import { expect } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

export interface McpConnection {
  client: Client;
  transport: StreamableHTTPClientTransport;
  close(): Promise<void>;
}

/**
 * The official SDK client over Streamable HTTP, connected (initialize + initialized) to the MCP
 * host at `url` (`http://127.0.0.1:<port>/mcp/`), sending `headers` on every request.
 */
export async function connectMcp(
  url: string,
  headers: Record<string, string> = {},
): Promise<McpConnection> {
  const client = new Client({ name: 'svc-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
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
    return text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as unknown);
  }
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed : [parsed];
}

export async function toolNames(mcp: McpConnection): Promise<string[]> {
  return (await mcp.client.listTools()).tools.map((tool) => tool.name);
}

/** The JSON-RPC error `promise` rejects with (fails the test if it resolves). */
export async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => new Error('expected a JSON-RPC error'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}
