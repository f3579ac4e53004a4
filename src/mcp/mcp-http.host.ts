import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import { ANONYMOUS_ADMIN, type AuthenticatedRequest } from '../platform/auth/principal.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { type IncomingMessages, parseJsonText, parseMessages } from './incoming-messages.js';
import { type JsonRpcFailure, JsonRpcCode, isFailure, sendJsonRpcError } from './json-rpc-error.js';
import { LegacyTransports, type McpHttpRequest } from './legacy/legacy-transports.js';
import { ModernEndpoint } from './modern/modern-endpoint.js';
import { BATCHES_REMOVED, MODERN_REVISION } from './protocol-revisions.js';
import { readBody } from './request-body.js';
import { StatelessCancellations } from './stateless-cancellations.js';
import { resolveContext, toAuthInfo } from './tenant-context.js';
import { mcpNodeSdk, mcpServerSdk } from '../tools/mcp-sdk.js';

type McpRequest = Request & AuthenticatedRequest;

const transportError = (status: number, message: string): JsonRpcFailure => ({
  status,
  code: JsonRpcCode.Transport,
  message,
});

/** 2026-07-28 has no GET stream and no session to DELETE (its spec's answer is 405). */
const MODERN_POST_ONLY: JsonRpcFailure = {
  ...transportError(
    405,
    `Method Not Allowed: protocol revision ${MODERN_REVISION} has no session or GET stream; POST each request (subscriptions/listen for changes)`,
  ),
  headers: { allow: 'POST' },
};

function header(req: McpRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/**
 * Whether a request could be of the 2026-07-28 era, for the price of a property lookup: the
 * SDK's classifier routes a request there only on a claim, a modern `MCP-Protocol-Version`
 * header or the `_meta` envelope's protocol version. Without either it is legacy for certain,
 * and the classifier (which builds a web Request) is not asked.
 */
function mayBeModern(req: McpRequest, body: unknown): boolean {
  if (namesModernRevision(req)) return true;
  for (const message of Array.isArray(body) ? body : [body]) {
    const meta = (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params
      ?._meta;
    if (meta !== null && typeof meta === 'object' && PROTOCOL_VERSION_META in meta) return true;
  }
  return false;
}

/** The request's `MCP-Protocol-Version` names 2026-07-28 or later. */
function namesModernRevision(req: McpRequest): boolean {
  const version = header(req, 'mcp-protocol-version');
  return version !== undefined && version >= MODERN_REVISION;
}

/** A body-less copy of the request, enough for the SDK to tell the eras apart. */
function probeOf(req: McpRequest): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  return new globalThis.Request(`http://gateway${req.url}`, { method: 'POST', headers });
}

/**
 * The SDK, imported with the first MCP request (tools/mcp-sdk.ts); everything below McpHttpHost
 * (transports, servers, handlers) runs after this and reads it with `get()`.
 */
async function loadSdk(): Promise<void> {
  await Promise.all([mcpServerSdk.load(), mcpNodeSdk.load()]);
}

/**
 * The HTTP side of the MCP host, after McpOriginMiddleware (foreign Origin or Host) and the
 * AuthGuard: refuses what must never reach the SDK (the wrong Accept or Content-Type, a body
 * over SVC_MAX_BODY_BYTES, malformed JSON-RPC, a batch on a revision without batches, no
 * tenant), then decides the protocol era per request, as the SDK classifies it: a request
 * carrying the 2026-07-28 `_meta` envelope goes to the stateless ModernEndpoint, anything else
 * (`initialize`, sessions, plain 2025 requests) to the legacy session or stateless transports,
 * with its tenant attached.
 */
@Injectable()
export class McpHttpHost {
  private readonly maxBodyBytes: number;
  private readonly maxJsonDepth: number;
  private readonly defaultTenant?: string;

  constructor(
    config: ConfigService<GatewayConfig, true>,
    private readonly transports: LegacyTransports,
    private readonly modern: ModernEndpoint,
    private readonly cancellations: StatelessCancellations,
  ) {
    const server = config.get('server', { infer: true });
    this.maxBodyBytes = server.maxBodyBytes;
    this.maxJsonDepth = server.maxJsonDepth;
    this.defaultTenant = config.get('tenancy', { infer: true }).defaultTenant;
  }

  async post(req: McpRequest, res: Response): Promise<void> {
    await loadSdk();
    const refused = this.headerRefusal(req);
    if (refused) return sendJsonRpcError(res, refused);
    const incoming = await this.readMessages(req);
    if (incoming === null) return; // the client went away mid-body
    if (isFailure(incoming)) return sendJsonRpcError(res, incoming);
    const context = resolveContext(req, this.defaultTenant);
    if (typeof context === 'string') return sendJsonRpcError(res, transportError(400, context));
    const batchRefusal = this.batchRefusal(req, incoming);
    if (batchRefusal) return sendJsonRpcError(res, batchRefusal);
    if (header(req, 'mcp-session-id') === undefined) {
      const owner = { keyId: context.actor, tenantId: context.tenantId };
      for (const id of incoming.cancelled) await this.cancellations.cancel(owner, id);
    }
    const mcpRequest: McpHttpRequest = req;
    mcpRequest.auth = toAuthInfo(context);
    const { isLegacyRequest } = mcpServerSdk.get();
    if (mayBeModern(req, incoming.body) && !(await isLegacyRequest(probeOf(req), incoming.body))) {
      return this.modern.serve(mcpRequest, res, incoming.body, context);
    }
    await this.transports.post(mcpRequest, res, incoming, context);
  }

  async get(req: McpRequest, res: Response): Promise<void> {
    if (namesModernRevision(req)) return sendJsonRpcError(res, MODERN_POST_ONLY);
    await loadSdk();
    await this.transports.get(req, res, this.owner(req));
  }

  async delete(req: McpRequest, res: Response): Promise<void> {
    if (namesModernRevision(req)) return sendJsonRpcError(res, MODERN_POST_ONLY);
    await loadSdk();
    await this.transports.delete(req, res, this.owner(req));
  }

  /**
   * Batches went with 2025-06-18. The revision is the request's `MCP-Protocol-Version`, else
   * the one its session negotiated (a session's client may leave the header out); a request
   * with neither is 2025-03-26 or older, which allowed batches.
   */
  private batchRefusal(req: McpRequest, incoming: IncomingMessages): JsonRpcFailure | null {
    if (!incoming.batch) return null;
    const sessionId = header(req, 'mcp-session-id');
    const version =
      header(req, 'mcp-protocol-version') ??
      (sessionId === undefined
        ? undefined
        : this.transports.sessionRevision(sessionId, this.owner(req)));
    if (version === undefined || version < BATCHES_REMOVED) return null;
    return {
      status: 400,
      code: JsonRpcCode.InvalidRequest,
      message: `Invalid Request: JSON-RPC batches are not part of protocol revision ${version} (removed in ${BATCHES_REMOVED}); send one message per request`,
    };
  }

  private owner(req: McpRequest): string {
    return (req.principal ?? ANONYMOUS_ADMIN).keyId;
  }

  /** The SDK's own checks, made before the body is read (same status, code and wording). */
  private headerRefusal(req: McpRequest): JsonRpcFailure | null {
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return transportError(
        406,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
    }
    if (!mcpServerSdk.get().isJsonContentType(req.headers['content-type'])) {
      return transportError(415, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      return transportError(415, `Unsupported Media Type: Content-Encoding ${encoding}`);
    }
    return null;
  }

  private async readMessages(req: McpRequest): Promise<IncomingMessages | JsonRpcFailure | null> {
    const body = await readBody(req, this.maxBodyBytes, this.maxJsonDepth);
    switch (body.kind) {
      case 'aborted':
        return null;
      case 'too-large':
        return {
          ...transportError(413, `Payload Too Large: the body exceeds ${this.maxBodyBytes} bytes`),
          // Answer and hang up rather than read the rest of an oversized body.
          headers: { connection: 'close' },
        };
      case 'not-utf8':
        return {
          status: 400,
          code: JsonRpcCode.ParseError,
          message: 'Parse error: the body is not UTF-8',
        };
      case 'too-deep':
        return {
          status: 400,
          code: JsonRpcCode.InvalidRequest,
          message: `Invalid Request: the JSON is nested deeper than ${this.maxJsonDepth} levels`,
        };
      case 'parsed':
        return parseMessages(body.value);
      case 'text': {
        const json = parseJsonText(body.text);
        return 'value' in json ? parseMessages(json.value) : json;
      }
    }
  }
}
