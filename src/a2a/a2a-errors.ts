import { Logger } from '@nestjs/common';
import {
  A2AError,
  type A2AErrorInfo,
  RequestMalformedError,
  RestRequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
} from '@a2a-js/sdk/errors';
import { classifyError } from '../platform/http/classify-error.js';
import { problemTitle } from '../platform/http/problem.js';
import { type A2ABinding, A2ATenantError } from './a2a-caller.js';

/** The `domain` of the ErrorInfo of the gateway's own refusals. */
const GATEWAY_DOMAIN = 'svc-gateway';

/**
 * Refusals A2A defines no error of its own for, as the spec says to give them (section 3.3.2:
 * the HTTP status, and for JSON-RPC "a custom error"): the google.rpc reason, and the JSON-RPC
 * code this gateway uses, outside JSON-RPC's reserved -32768..-32000, with the HTTP status in
 * its last three digits. Over JSON-RPC these answer with that HTTP status too.
 */
export const GATEWAY_ERRORS: Readonly<Record<number, { reason: string; code: number }>> = {
  401: { reason: 'UNAUTHENTICATED', code: -31401 },
  403: { reason: 'PERMISSION_DENIED', code: -31403 },
  404: { reason: 'NOT_FOUND', code: -31404 },
  409: { reason: 'ABORTED', code: -31409 },
  429: { reason: 'RESOURCE_EXHAUSTED', code: -31429 },
  // The state backend away or the replica shutting down: worth a retry, unlike a fault.
  503: { reason: 'UNAVAILABLE', code: -31503 },
};

/** The google.rpc status name of an HTTP status, as AIP-193 error bodies carry it. */
export function statusName(status: number): string {
  if (GATEWAY_ERRORS[status]) return GATEWAY_ERRORS[status].reason;
  if (status === 400 || status === 413 || status === 415 || status === 422) {
    return 'INVALID_ARGUMENT';
  }
  if (status === 503) return 'UNAVAILABLE';
  if (status === 504) return 'DEADLINE_EXCEEDED';
  return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
}

/** The HTTP status of a gateway JSON-RPC code (GATEWAY_ERRORS), if it is one. */
export function statusOfCode(code: unknown): number | undefined {
  if (typeof code !== 'number') return undefined;
  const status = -code - 31000;
  return GATEWAY_ERRORS[status]?.code === code ? status : undefined;
}

/** A gateway refusal over JSON-RPC: the SDK writes `envelopeCode` as the error's code. */
export class GatewayJsonRpcError extends A2AError {
  readonly transport = 'jsonrpc';
  override readonly reason: string;
  constructor(
    message: string,
    readonly envelopeCode: number,
    reason: string,
    metadata?: Record<string, string>,
  ) {
    super({ message, ...(metadata && { metadata }) });
    this.reason = reason;
  }

  override toErrorInfo(): A2AErrorInfo {
    return { ...super.toErrorInfo(), domain: GATEWAY_DOMAIN as A2AErrorInfo['domain'] };
  }
}

/** A gateway refusal over HTTP+JSON: the SDK answers `statusCode`. */
class GatewayRestError extends A2AError {
  readonly transport = 'rest';
  override readonly reason: string;
  constructor(
    message: string,
    readonly statusCode: number,
    reason: string,
    metadata?: Record<string, string>,
  ) {
    super({ message, ...(metadata && { metadata }) });
    this.reason = reason;
  }

  override toErrorInfo(): A2AErrorInfo {
    return { ...super.toErrorInfo(), domain: GATEWAY_DOMAIN as A2AErrorInfo['domain'] };
  }
}

/**
 * A refusal with an HTTP status A2A has no error for, in the binding's terms; `metadata` (the
 * facts of a spent token budget) travels in its google.rpc.ErrorInfo.
 */
export function gatewayError(
  binding: A2ABinding,
  status: number,
  message: string,
  metadata?: Record<string, string>,
): A2AError {
  const known = GATEWAY_ERRORS[status];
  if (binding === 'rest') {
    return new GatewayRestError(message, status, statusName(status), metadata);
  }
  // A fault beyond the request (500, 502, 504) is JSON-RPC's internal error (HTTP 500).
  return known
    ? new GatewayJsonRpcError(message, known.code, known.reason, metadata)
    : new GatewayJsonRpcError(message, -32603, statusName(status), metadata);
}

/** A problem's extension members (a budget's facts) as ErrorInfo metadata: strings only. */
function metadataOf(members: Record<string, unknown> | undefined) {
  if (!members || Object.keys(members).length === 0) return undefined;
  return Object.fromEntries(
    Object.entries(members).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );
}

/** Invalid input: -32602 / 400 (413 over HTTP+JSON for a body or message too large). */
function malformed(binding: A2ABinding, status: number, message: string): A2AError {
  return binding === 'rest' && status !== 400
    ? new RestRequestMalformedError({ message, statusCode: status === 413 ? 413 : 400 })
    : new RequestMalformedError(message);
}

const logger = new Logger('A2A');

/**
 * A gateway error as the A2A error a client reads (A2A section 5.4 and 3.3.2): an unknown run is
 * TaskNotFound, a run that already ended TaskNotCancelable (when cancelling), invalid input
 * InvalidParams (-32602 / 400), a refusal of the key (403), an unknown agent (404), a conflict
 * (409), a rate limit or a spent token budget (429, the budget's facts in the ErrorInfo's
 * metadata) the gateway's refusals with that HTTP status, a fault of the
 * model, a tool or the state backend -32603 / its 5xx. Anything else is a bug: logged, and
 * answered as an internal error that says nothing of it.
 */
export function toA2AError(error: unknown, binding: A2ABinding, cancelling = false): A2AError {
  if (error instanceof A2AError) return error;
  if (error instanceof A2ATenantError) {
    return error.forbidden
      ? gatewayError(binding, 403, error.message)
      : malformed(binding, 400, error.message);
  }
  const problem = classifyError(error);
  if (!problem) {
    logger.error({ err: error }, 'an A2A request failed');
    return gatewayError(binding, 500, 'an unexpected error occurred');
  }
  const fields = problem.errors
    ?.filter((field) => !problem.detail.includes(field.message))
    .map((field) => `${field.path}: ${field.message}`)
    .join('; ');
  const detail = fields ? `${problem.detail}: ${fields}` : problem.detail;
  // A run that is not there (the cancel service's 404 has no slug); an unknown agent is not one.
  if (problem.status === 404 && (problem.slug === 'run-not-found' || problem.slug === undefined)) {
    return new TaskNotFoundError(detail);
  }
  if (cancelling && problem.status === 409) return new TaskNotCancelableError(detail);
  if ([400, 413, 415, 422].includes(problem.status)) {
    return malformed(binding, problem.status, detail);
  }
  const metadata = metadataOf(problem.members);
  if (GATEWAY_ERRORS[problem.status]) {
    // A spent token budget says which, how much and when it resets (with a 429 of its own).
    const title = problem.slug === 'budget-exhausted' ? `${problemTitle(429)}: ` : '';
    return gatewayError(binding, problem.status, `${title}${detail}`, metadata);
  }
  return gatewayError(
    binding,
    problem.status,
    `${problemTitle(problem.status)}: ${detail}`,
    metadata,
  );
}
