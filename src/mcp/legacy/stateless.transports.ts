import type { ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { IncomingMessages } from '../incoming-messages.js';
import { JsonRpcCode, sendJsonRpcError } from '../json-rpc-error.js';
import type { McpServerFactory } from '../mcp-server.factory.js';
import {
  type LegacyStreamOptions,
  type McpHttpRequest,
  LegacyTransports,
} from './legacy-transports.js';

/** Idle Servers kept for reuse; more than this in flight at once are built and dropped. */
const MAX_IDLE_SERVERS = 64;

/**
 * SVC_MCP_MODE=stateless: every POST stands alone, so any replica can answer it (no sticky
 * sessions). The SDK refuses to reuse a stateless transport (two clients' request ids would
 * collide), so each POST gets a fresh transport; the Servers, which are dearer (handler
 * registration, capabilities), are pooled and reconnected. The answer is plain JSON unless a
 * request asked for progress, which needs an SSE response.
 */
export class StatelessTransports extends LegacyTransports {
  private readonly idle: Server[] = [];

  constructor(
    private readonly servers: McpServerFactory,
    private readonly streams: LegacyStreamOptions,
  ) {
    super();
  }

  async post(req: McpHttpRequest, res: ServerResponse, incoming: IncomingMessages): Promise<void> {
    const server = this.idle.pop() ?? this.servers.create();
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !incoming.wantsProgress,
      keepAliveMs: this.streams.keepAliveMs,
    });
    // A client that goes away cancels its tool call (closing aborts the request handlers).
    const close = () => void transport.close();
    res.once('close', close);
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, incoming.body);
    } finally {
      res.off('close', close);
      // Closing detaches the Server from this transport, so it can serve the next POST.
      await transport.close();
      if (this.idle.length < MAX_IDLE_SERVERS) this.idle.push(server);
    }
  }

  get(_req: McpHttpRequest, res: ServerResponse): Promise<void> {
    return this.notAllowed(res);
  }

  delete(_req: McpHttpRequest, res: ServerResponse): Promise<void> {
    return this.notAllowed(res);
  }

  /** No sessions and no standalone SSE stream: the spec's answer is 405. */
  private notAllowed(res: ServerResponse): Promise<void> {
    sendJsonRpcError(res, {
      status: 405,
      code: JsonRpcCode.Transport,
      message: 'Method Not Allowed: this MCP host is stateless (POST only, no sessions)',
      headers: { allow: 'POST' },
    });
    return Promise.resolve();
  }
}
