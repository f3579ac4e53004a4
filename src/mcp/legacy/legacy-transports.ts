import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { IncomingMessages } from '../incoming-messages.js';
import type { McpContext } from '../tenant-context.js';

/** A request as the SDK transport reads it: `auth` becomes the handlers' `extra.authInfo`. */
export type McpHttpRequest = IncomingMessage & { auth?: AuthInfo };

/** How SSE streams behave: comment keepalives, and the `retry` delay of priming events. */
export interface LegacyStreamOptions {
  keepAliveMs: number;
  retryMs: number;
}

/**
 * How MCP requests meet the SDK's Streamable HTTP transport, chosen by SVC_MCP_MODE:
 * `stateful` keeps a Server and transport per session, `stateless` serves each POST alone.
 * Requests arrive checked (origin, headers, body, tenant); on POST `context` is the request's
 * tenant, toolset and key (a new session is opened for them and counts against their quotas),
 * on GET and DELETE `owner` is the caller's key.
 */
export abstract class LegacyTransports {
  abstract post(
    req: McpHttpRequest,
    res: ServerResponse,
    incoming: IncomingMessages,
    context: McpContext,
  ): Promise<void>;
  /** The revision session `sessionId` of `owner` negotiated; undefined without one. */
  abstract sessionRevision(sessionId: string, owner: string): string | undefined;
  /** Opens the session's server-to-client SSE stream. */
  abstract get(req: McpHttpRequest, res: ServerResponse, owner: string): Promise<void>;
  /** Ends the session. */
  abstract delete(req: McpHttpRequest, res: ServerResponse, owner: string): Promise<void>;
}
