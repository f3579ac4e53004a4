import {
  HEADERS_METADATA,
  RESPONSE_PASSTHROUGH_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { STATUS_CODES } from 'node:http';
import type { JsonSchema, OpenApiDocument, OpenApiOperation } from './openapi.types.js';
import type { RouteHandler } from './route-handlers.js';

/** A response body's JSON Schema and the component name it is published under. */
export interface NamedSchema {
  name: string;
  schema: JsonSchema;
}

const RESPONSE_SCHEMAS = 'svc:openapi:response-schemas';

interface DeclaredResponse {
  status: number;
  body: NamedSchema;
}

/**
 * The JSON body a route answers with each of `statuses` (200 when none is given), for the API
 * description. Response bodies are built from interfaces, which leave nothing at run time to
 * read, so the feature that owns a shape states its schema once; the OpenAPI e2e test checks
 * real answers against it.
 */
export function ResponseSchema(body: NamedSchema, ...statuses: number[]): MethodDecorator {
  return (_target, _key, descriptor) => {
    const handler: unknown = descriptor.value;
    if (typeof handler !== 'function') return;
    const declared = (Reflect.getOwnMetadata(RESPONSE_SCHEMAS, handler) ??
      []) as DeclaredResponse[];
    const added = (statuses.length > 0 ? statuses : [200]).map((status) => ({ status, body }));
    Reflect.defineMetadata(RESPONSE_SCHEMAS, [...declared, ...added], handler);
  };
}

/** Whether the handler writes the response itself (`@Res()` without passthrough). */
function answersItself(route: RouteHandler): boolean {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, route.controller, route.method) ??
    {}) as Record<string, unknown>;
  const takesResponse = Object.keys(args).some((key) =>
    key.startsWith(`${RouteParamtypes.RESPONSE}:`),
  );
  return (
    takesResponse &&
    Reflect.getMetadata(RESPONSE_PASSTHROUGH_METADATA, route.controller, route.method) !== true
  );
}

/** The Content-Type a handler sets with `@Header()`, if it sets one. */
function declaredContentType(route: RouteHandler): string | undefined {
  const headers = (Reflect.getMetadata(HEADERS_METADATA, route.handler) ?? []) as Array<{
    name: string;
    value: string;
  }>;
  return headers.find((header) => header.name.toLowerCase() === 'content-type')?.value;
}

/**
 * The success responses of an operation. @nestjs/swagger guesses 201 for a POST and 200
 * otherwise (or `@HttpCode`); a handler that writes the response itself chooses its status,
 * so without a declared schema its success is `2XX`. Declared bodies (`@ResponseSchema`) are
 * components referenced by their statuses.
 */
export function describeSuccess(
  operation: OpenApiOperation,
  route: RouteHandler,
  document: OpenApiDocument,
): void {
  const responses = operation.responses;
  const declared = (Reflect.getMetadata(RESPONSE_SCHEMAS, route.handler) ??
    []) as DeclaredResponse[];
  const guessed = Object.keys(responses).filter((status) => /^2\d\d$/.test(status));
  if (declared.length > 0 || answersItself(route)) {
    for (const status of guessed) delete responses[status];
  }
  for (const { status, body } of declared) {
    const existing = document.components.schemas[body.name];
    if (existing !== undefined && existing !== body.schema) {
      throw new Error(`two response schemas are named ${body.name}`);
    }
    document.components.schemas[body.name] = body.schema;
    responses[String(status)] = {
      description: STATUS_CODES[status] ?? 'Success',
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${body.name}` } } },
    };
  }
  if (declared.length === 0 && answersItself(route)) {
    responses['2XX'] = { description: 'Success; the handler chooses the status.' };
  }
  const type = declaredContentType(route);
  for (const [status, response] of Object.entries(responses)) {
    if (!/^2/.test(status) || '$ref' in response) continue;
    if (!response.description) response.description = STATUS_CODES[Number(status)] ?? 'Success';
    if (type && !response.content) response.content = { [type]: { schema: { type: 'string' } } };
  }
}
