import type { ServerResponse } from 'node:http';
import { mcpNodeSdk } from '../../tools/mcp-sdk.js';
import type { IncomingMessages } from '../incoming-messages.js';
import { JsonRpcCode, sendJsonRpcError } from '../json-rpc-error.js';
import type { McpServerFactory } from '../mcp-server.factory.js';
import {
  type LegacyStreamOptions,
  type McpHttpRequest,
  LegacyTransports,
} from './legacy-transports.js';
import { SessionEventStore } from './session-event.store.js';

/**
 * SVC_MCP_MODE=stateless: every POST stands alone, so any replica can answer it (no sticky
 * sessions): a fresh transport and a fresh Server each (the SDK refuses to reuse a stateless
 * transport, and a Server keeps what a client told it: reused, one client's log level or
 * capabilities would reach the next). The answer is plain JSON unless a request asked for
 * progress, which needs an SSE response; that stream opens with a priming event (for clients of
 * 2025-11-25, as in sessions) whose ids only label its events: without a session there is
 * nothing to resume (GET is 405).
 */
export class StatelessTransports extends LegacyTransports {
  constructor(
    private readonly servers: McpServerFactory,
    private readonly streams: LegacyStreamOptions,
  ) {
    super();
  }

  async post(req: McpHttpRequest, res: ServerResponse, incoming: IncomingMessages): Promise<void> {
    const server = this.servers.create('stateless');
    const { NodeStreamableHTTPServerTransport } = mcpNodeSdk.get();
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !incoming.wantsProgress,
      keepAliveMs: this.streams.keepAliveMs,
      ...(incoming.wantsProgress && {
        eventStore: new SessionEventStore(),
        retryInterval: this.streams.retryMs,
      }),
    });
    // A client that goes away cancels its tool call (closing aborts the request handlers).
    const close = () => void transport.close();
    res.once('close', close);
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, incoming.body);
    } finally {
      res.off('close', close);
      await transport.close();
    }
  }

  sessionRevision(): undefined {
    return undefined;
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
