import { HttpException, type Logger } from '@nestjs/common';
import { classifyError } from '../platform/http/classify-error.js';
import { ProblemException, problemType } from '../platform/http/problem.js';
import { InvalidStateKeyError } from '../platform/state/state-key.limits.js';
import { ProtocolErrorCode as ErrorCode } from '../tools/mcp-sdk.js';

/**
 * An error a request handler throws; the SDK answers it as `{code, message, data}`. (The SDK's
 * McpError would put "MCP error <code>: " in front of the message on the wire.)
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** 502/504 from a tool call: the tool failed, which the caller sees as an `isError` result. */
export function isToolFailure(error: unknown): error is ProblemException {
  return (
    error instanceof ProblemException &&
    (error.slug === 'tool-failed' || error.slug === 'tool-timeout')
  );
}

/**
 * Arguments that fail the tool's schema: a tool result with `isError` (SEP-1303), so the model
 * that chose them reads what was wrong and can call again; a protocol error would end at the
 * client. The text names each field and what it broke.
 */
export function invalidArgumentsText(error: unknown): string | null {
  if (!(error instanceof ProblemException) || error.slug !== 'invalid-arguments') return null;
  const fields = (error.errors ?? []).map((field) => `${field.path}: ${field.message}`);
  return fields.length > 0 ? `${error.message} (${fields.join('; ')})` : error.message;
}

function detailOf(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  return typeof message === 'string' ? message : error.message;
}

/**
 * A failure of list or call as a JSON-RPC error. The caller's mistakes (unknown tool or
 * toolset, 4xx problems; arguments that fail the schema are a tool result instead) are -32602 with the problem's type,
 * status and field errors in `data`; a refusal that passes with time (503 while the state
 * backend is away) is -32603 with its type, status and `retry_after` seconds in `data`; anything
 * else is -32603 and never carries internals.
 */
export function toRpcError(error: unknown, logger: Logger): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof HttpException && error.getStatus() < 500) {
    const status = error.getStatus();
    const slug = error instanceof ProblemException ? error.slug : undefined;
    const errors = error instanceof ProblemException ? error.errors : undefined;
    return new RpcError(ErrorCode.InvalidParams, detailOf(error), {
      type: problemType(status, slug),
      status,
      ...(errors ? { errors } : {}),
    });
  }
  if (error instanceof InvalidStateKeyError) {
    // An identifier the state backend cannot hold: the caller's mistake, like a 400.
    return new RpcError(ErrorCode.InvalidParams, error.message, {
      type: problemType(400),
      status: 400,
    });
  }
  const refusal = classifyError(error);
  if (refusal?.retryAfterS !== undefined) {
    // A refusal that passes with time (the state backend is away, the replica is stopping): the
    // problem a REST caller would get, since a JSON-RPC answer has no status or Retry-After.
    return new RpcError(ErrorCode.InternalError, refusal.detail, {
      type: problemType(refusal.status, refusal.slug),
      status: refusal.status,
      retry_after: refusal.retryAfterS,
    });
  }
  logger.error({ err: error }, 'MCP request failed');
  return new RpcError(ErrorCode.InternalError, 'an unexpected error occurred');
}
