import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { describeProblem } from '../platform/http/problem.filter.js';
import { JsonRpcCode, sendJsonRpcError } from './json-rpc-error.js';

/**
 * Errors raised on `/mcp/` before the MCP host (no key, a key without `tools:call`, a tenant the
 * key may not name, rate limits) in the one style the host answers in: the HTTP status with a
 * JSON-RPC error body, as the SDK's transport refusals have, plus the REST problem's headers
 * (`WWW-Authenticate` on 401, `Retry-After`) and its type and status in `error.data`.
 */
@Catch()
export class McpProblemFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const { body, headers } = describeProblem(exception, http.getRequest());
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
