import { EXCEPTION_FILTERS_METADATA, GUARDS_METADATA } from '@nestjs/common/constants.js';
import { PROBLEM_CONTENT_TYPE } from '../http/problem.js';
import { isPublic } from './operation-access.js';
import type { JsonSchema, OpenApiOperation, OpenApiResponse } from './openapi.types.js';
import type { RouteHandler } from './route-handlers.js';

/** The error body of every route (CONTRACT section 3; `ProblemDetails` in http/problem.ts). */
export const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details: the body of every error response.',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: {
      type: 'string',
      description: '`urn:svc:problem:<slug>`, e.g. `urn:svc:problem:validation`.',
    },
    title: { type: 'string', description: 'The HTTP status text.' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    instance: { type: 'string', description: 'The request path.' },
    request_id: { type: 'string', description: 'Quote it when reporting a problem.' },
    errors: {
      type: 'array',
      description: 'Validation failures: one entry per invalid field (at most 20).',
      maxItems: 20,
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: {
          path: { type: 'string', description: 'e.g. `tenant_id`, `steps[2].depends_on`.' },
          message: { type: 'string' },
        },
      },
    },
  },
};

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
};

function problem(description: string, headers?: OpenApiResponse['headers']): OpenApiResponse {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

/** Shared responses, referenced by the operations they apply to. */
export const PROBLEM_RESPONSES: Record<string, OpenApiResponse> = {
  Problem: problem('An error, as problem details.'),
  Invalid: problem('Malformed JSON or invalid fields; `errors` lists them.'),
  Unauthorized: problem(
    'No valid credential: an API key (or, for a signed webhook, its signature).',
    {
      'WWW-Authenticate': {
        description: 'The challenge: `Bearer realm="svc"`.',
        schema: { type: 'string' },
      },
    },
  ),
  Forbidden: problem(
    'The key lacks a permission, or is bound to another tenant than the one named.',
  ),
  TooLarge: problem('The body is over `SVC_MAX_BODY_BYTES`.'),
  NotJson: problem('The body is not JSON.'),
  TooMany: problem(
    "Over the tenant's rate limit, or too many failed authentications from this address.",
    RETRY_AFTER,
  ),
  Unavailable: problem(
    'The state backend is unreachable, or the gateway is shutting down.',
    RETRY_AFTER,
  ),
};

const ref = (name: keyof typeof PROBLEM_RESPONSES) => ({ $ref: `#/components/responses/${name}` });

/** Whether the handler or its controller carries `key` metadata (`@UseFilters`, `@UseGuards`). */
function hasOwn(route: RouteHandler, key: string): boolean {
  return [route.handler, route.controller].some(
    (target) => ((Reflect.getMetadata(key, target) ?? []) as unknown[]).length > 0,
  );
}

/**
 * The error responses of an operation, from what the request passes through: every route's
 * errors are problem details (`default`); a route with a body or validated parameters can
 * answer 400, one with a body 413 and 415; one that checks its caller (a key, or a guard of
 * its own) 401, 403, 429 and 503 (the state backend away). Routes whose errors are in their
 * protocol's own format (an exception filter of their own, as MCP's JSON-RPC errors, or a wire
 * registered with WireErrors: `ownFormat`, as the OpenAI wire and A2A's bindings) only say so.
 */
export function describeErrors(
  operation: OpenApiOperation,
  route: RouteHandler,
  ownFormat = false,
): void {
  const responses = operation.responses;
  // A route with an exception filter of its own answers errors in its protocol's format.
  if (ownFormat || hasOwn(route, EXCEPTION_FILTERS_METADATA)) {
    responses.default ??= { description: "An error, in this protocol's own error format." };
    return;
  }
  const body = operation.requestBody !== undefined;
  if (body || (operation.parameters ?? []).length > 0) responses['400'] ??= ref('Invalid');
  // A public route with a guard of its own (the signed webhook) can still refuse the caller.
  const checked = !isPublic(route) || hasOwn(route, GUARDS_METADATA);
  if (checked) {
    responses['401'] ??= ref('Unauthorized');
    responses['403'] ??= ref('Forbidden');
  }
  if (body) {
    responses['413'] ??= ref('TooLarge');
    responses['415'] ??= ref('NotJson');
  }
  if (checked) {
    responses['429'] ??= ref('TooMany');
    responses['503'] ??= ref('Unavailable');
  }
  responses.default ??= ref('Problem');
}
