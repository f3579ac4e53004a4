import type { ServerResponse } from 'node:http';
import type { RequestId } from '@modelcontextprotocol/server';
import { problemType } from '../platform/http/problem.js';
import { ProtocolErrorCode as ErrorCode } from '../tools/mcp-sdk.js';

/**
 * An error answered before a request reaches the MCP SDK (bad body, missing tenant, refused
 * origin), in the same shape the SDK's transport uses: HTTP status plus a JSON-RPC error body,
 * whose `data` holds the problem's `type` and `status` (as the REST problem would have them)
 * unless the failure brings data of its own.
 */
export interface JsonRpcFailure {
  status: number;
  code: number;
  message: string;
  /** The failing request's id where known; JSON-RPC says null otherwise. */
  id?: RequestId | null;
  data?: unknown;
  headers?: Record<string, string>;
}

/** JSON-RPC's codes plus the SDK's -32000 for transport-level refusals. */
export const JsonRpcCode = {
  ParseError: ErrorCode.ParseError,
  InvalidRequest: ErrorCode.InvalidRequest,
  InvalidParams: ErrorCode.InvalidParams,
  Transport: -32000,
  SessionNotFound: -32001,
} as const;

export function failure(status: number, code: number, message: string): JsonRpcFailure {
  return { status, code, message };
}

export function sendJsonRpcError(res: ServerResponse, failure: JsonRpcFailure): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const error = {
    code: failure.code,
    message: failure.message,
    data: failure.data ?? { type: problemType(failure.status), status: failure.status },
  };
  const body = JSON.stringify({ jsonrpc: '2.0', id: failure.id ?? null, error });
  res.writeHead(failure.status, {
    ...failure.headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

export function isFailure(value: object): value is JsonRpcFailure {
  return 'code' in value && 'status' in value;
}
