import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { ANONYMOUS_ADMIN, type AuthenticatedRequest } from '../platform/auth/principal.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { type IncomingMessages, parseJsonText, parseMessages } from './incoming-messages.js';
import { type JsonRpcFailure, JsonRpcCode, isFailure, sendJsonRpcError } from './json-rpc-error.js';
import { type McpHttpRequest, McpTransports } from './mcp-transports.js';
import { OriginPolicy } from './origin.policy.js';
import { readBody } from './request-body.js';
import { resolveContext, toAuthInfo } from './tenant-context.js';

type McpRequest = Request & AuthenticatedRequest;

const transportError = (status: number, message: string): JsonRpcFailure => ({
  status,
  code: JsonRpcCode.Transport,
  message,
});

/**
 * The HTTP side of the MCP host, after the AuthGuard: refuses what must never reach the SDK
 * (a foreign Origin or Host, the wrong Accept or Content-Type, a body over SVC_MAX_BODY_BYTES,
 * malformed JSON-RPC, no tenant), then hands the request to the session or stateless
 * transports with its tenant context attached.
 */
@Injectable()
export class McpHttpHost {
  private readonly policy: OriginPolicy;
  private readonly maxBodyBytes: number;
  private readonly maxJsonDepth: number;
  private readonly defaultTenant?: string;

  constructor(
    config: ConfigService<GatewayConfig, true>,
    private readonly transports: McpTransports,
  ) {
    const server = config.get('server', { infer: true });
    this.policy = new OriginPolicy(config.get('mcp', { infer: true }), server.host);
    this.maxBodyBytes = server.maxBodyBytes;
    this.maxJsonDepth = server.maxJsonDepth;
    this.defaultTenant = config.get('tenancy', { infer: true }).defaultTenant;
  }

  async post(req: McpRequest, res: Response): Promise<void> {
    const refused = this.refusal(req) ?? this.headerRefusal(req);
    if (refused) return sendJsonRpcError(res, refused);
    const incoming = await this.readMessages(req);
    if (incoming === null) return; // the client went away mid-body
    if (isFailure(incoming)) return sendJsonRpcError(res, incoming);
    const context = resolveContext(req, this.defaultTenant);
    if (typeof context === 'string') return sendJsonRpcError(res, transportError(400, context));
    const mcpRequest: McpHttpRequest = req;
    mcpRequest.auth = toAuthInfo(context);
    await this.transports.post(mcpRequest, res, incoming, {
      keyId: context.actor,
      tenantId: context.tenantId,
    });
  }

  async get(req: McpRequest, res: Response): Promise<void> {
    const refused = this.refusal(req);
    if (refused) return sendJsonRpcError(res, refused);
    await this.transports.get(req, res, this.owner(req));
  }

  async delete(req: McpRequest, res: Response): Promise<void> {
    const refused = this.refusal(req);
    if (refused) return sendJsonRpcError(res, refused);
    await this.transports.delete(req, res, this.owner(req));
  }

  private owner(req: McpRequest): string {
    return (req.principal ?? ANONYMOUS_ADMIN).keyId;
  }

  private refusal(req: McpRequest): JsonRpcFailure | null {
    const reason = this.policy.refusal(req.headers);
    return reason === null ? null : transportError(403, reason);
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
    if (!isJsonContentType(req.headers['content-type'])) {
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
