import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { MissingPermissionException } from '../platform/auth/auth.guard.js';
import { describeProblem } from '../platform/http/problem.filter.js';
import { JsonRpcCode, sendJsonRpcError } from './json-rpc-error.js';

/** An RFC 7230 quoted-string of `value`: `"` and `\` escaped, anything unprintable a space. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(/[^\x20-\x7e]/g, ' ')}"`;
}

/**
 * The challenge of a 403 from the AuthGuard: the key is valid but may not do this (a
 * permission it lacks, named in `scope`, or a tenant it may not name), which RFC 6750 §3.1 and
 * the MCP authorization spec call `insufficient_scope`.
 */
function insufficientScope(exception: unknown, detail: string): string {
  const scope =
    exception instanceof MissingPermissionException
      ? `, scope=${quoted(exception.missing.join(' '))}`
      : '';
  return `Bearer realm="svc", error="insufficient_scope", error_description=${quoted(detail)}${scope}`;
}

/**
 * Errors raised on `/mcp/` before the MCP host (no key, a key without `tools:call`, a tenant the
 * key may not name, rate limits) in the one style the host answers in: the HTTP status with a
 * JSON-RPC error body, as the SDK's transport refusals have, plus the REST problem's headers
 * (`WWW-Authenticate` on 401, `Retry-After`), `WWW-Authenticate` with `insufficient_scope` on
 * 403, and the problem's type and status in `error.data`.
 */
@Catch()
export class McpProblemFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const { body, headers } = describeProblem(exception, http.getRequest());
    if (body.status === 403)
      headers['WWW-Authenticate'] = insufficientScope(exception, body.detail);
    sendJsonRpcError(res, {
      status: body.status,
      code: JsonRpcCode.Transport,
      message: `${body.title}: ${body.detail}`,
      data: {
        type: body.type,
        status: body.status,
        ...(body.request_id ? { request_id: body.request_id } : {}),
      },
      headers,
    });
  }
}
