import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Request, Response } from 'express';
import { A2A_ERROR_CODE, A2A_ERROR_DOMAIN, ERROR_INFO_TYPE } from '@a2a-js/sdk/errors';
import type { ProblemDetails } from '../platform/http/problem.js';
import { STATE_RETRY_AFTER_S } from '../platform/state/state-unavailable.js';
import { WireErrors } from '../platform/http/wire-errors.js';
import { type A2ABinding, callerBehind } from './a2a-caller.js';
import { GATEWAY_ERRORS, GatewayJsonRpcError, statusName, statusOfCode } from './a2a-errors.js';

/** `POST /a2a/{agent}`: the JSON-RPC binding. */
const JSON_RPC_PATH = /^\/a2a\/[^/]+\/?$/;
/** `/a2a/{agent}/rest/…`: the HTTP+JSON binding. */
const REST_PATH = /^\/a2a\/[^/]+\/rest(\/|$)/;

const slugOf = (body: ProblemDetails) => body.type.replace(/^urn:svc:problem:/, '');

/** The JSON-RPC error code of a refusal made before the SDK read the request. */
function jsonRpcCode(body: ProblemDetails): number {
  if (body.status === 400 && slugOf(body) === 'malformed-json') return A2A_ERROR_CODE.PARSE_ERROR;
  if (body.status === 400 || body.status === 413) return A2A_ERROR_CODE.INVALID_REQUEST;
  if (body.status === 415) return A2A_ERROR_CODE.CONTENT_TYPE_NOT_SUPPORTED;
  return GATEWAY_ERRORS[body.status]?.code ?? A2A_ERROR_CODE.INTERNAL_ERROR;
}

/** The ErrorInfo of a refusal: A2A's own reason where A2A has one, else the gateway's. */
function errorInfo(status: number) {
  const info = (reason: string, domain: string) => ({ '@type': ERROR_INFO_TYPE, reason, domain });
  if (status === 415) return info('CONTENT_TYPE_NOT_SUPPORTED', A2A_ERROR_DOMAIN);
  if (status === 400 || status === 413 || status === 422) {
    return info('INVALID_PARAMS', A2A_ERROR_DOMAIN);
  }
  return info(statusName(status), 'svc-gateway');
}

function requestId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * A2A's error shapes on its two bindings, for every error the gateway raises around the SDK
 * (malformed, oversized or non-JSON bodies, the guard's 401/403/429, the state backend's 503):
 * a JSON-RPC error object on `POST /a2a/{agent}` (-32700 for JSON that does not parse) and an
 * AIP-193 `{error: {code, status, message, details}}` on the HTTP+JSON binding, each with the
 * HTTP status and headers (`WWW-Authenticate`, `Retry-After`) the REST API would answer. And the
 * errors the SDK writes itself: a gateway refusal (GATEWAY_ERRORS) keeps its HTTP status over
 * JSON-RPC, where the SDK answers 200, and its status name over HTTP+JSON.
 */
@Injectable()
export class A2AWireErrors implements OnModuleInit {
  constructor(private readonly wires: WireErrors) {}

  onModuleInit(): void {
    this.wires.register(
      (method, path) => method === 'POST' && JSON_RPC_PATH.test(path),
      ({ body, headers }, req, res) => {
        res
          .status(body.status)
          .set(headers)
          .json({
            jsonrpc: '2.0',
            id: requestId(req.body),
            error: {
              code: jsonRpcCode(body),
              message: body.detail,
              // JSON-RPC's own codes (parse error, invalid request) say it all.
              ...(body.status !== 400 && body.status !== 413 && { data: [errorInfo(body.status)] }),
            },
          });
      },
    );
    this.wires.register(
      (_method, path) => REST_PATH.test(path),
      ({ body, headers }, _req, res) => {
        res
          .status(body.status)
          .set(headers)
          .json({
            error: {
              code: body.status,
              status: statusName(body.status),
              message: body.detail,
              details: [errorInfo(body.status)],
            },
          });
      },
    );
  }
}

/**
 * Makes the SDK's own error responses on `res` say what a gateway refusal is: over JSON-RPC
 * its HTTP status (the SDK answers every method error with 200) and its ErrorInfo, over
 * HTTP+JSON its status name (the SDK names statuses it has no error class for `UNKNOWN`).
 */
export function keepGatewayStatuses(req: Request, res: Response, binding: A2ABinding): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const error = (body as { error?: { code?: unknown; status?: unknown; data?: unknown } } | null)
      ?.error;
    if (error && !res.headersSent) {
      const failure = callerBehind(req)?.failure;
      // The refusal's ErrorInfo (a spent budget's facts): the SDK leaves it out for our codes.
      if (
        binding === 'jsonrpc' &&
        error.data === undefined &&
        failure instanceof GatewayJsonRpcError
      ) {
        error.data = [failure.toErrorInfo()];
      }
      const status =
        binding === 'jsonrpc'
          ? statusOfCode(error.code)
          : typeof error.code === 'number'
            ? error.code
            : undefined;
      if (binding === 'jsonrpc' && status !== undefined) res.status(status);
      if (binding === 'rest' && error.status === 'UNKNOWN' && status !== undefined) {
        error.status = statusName(status);
      }
      // A refusal that passes with time says when to come back, as the REST API's does.
      if (status === 503 && !res.getHeader('retry-after')) {
        res.setHeader('Retry-After', String(STATE_RETRY_AFTER_S));
      }
    }
    return json(body);
  };
}
