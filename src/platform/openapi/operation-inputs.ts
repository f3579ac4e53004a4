import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { SWAGGER_METADATA } from './api-decorators.js';
import { DtoSchemas } from './dto-schemas.js';
import type { JsonSchema, OpenApiOperation, OpenApiParameter } from './openapi.types.js';
import { type RouteHandler, routeArguments } from './route-handlers.js';

/**
 * The DTO classes a handler takes whole with `@ValidBody()`, `@ValidQuery()` or `@ValidParams()`
 * (Nest's `@Body()`, `@Query()` and `@Param()` with the validation pipe), and the body
 * class an `@ApiBody({ type })` names for a handler that reads the body itself.
 */
function dtoArguments(route: RouteHandler): Array<{ kind: RouteParamtypes; type: unknown }> {
  const declared = (Reflect.getMetadata(SWAGGER_METADATA.API_PARAMETERS, route.handler) ??
    []) as Array<{
    in?: string;
    type?: unknown;
  }>;
  return [
    // `@Query('name')` takes one field, which @nestjs/swagger already describes.
    ...routeArguments(route)
      .filter((arg) => arg.data === undefined)
      .map(({ kind, type }) => ({ kind, type })),
    ...declared
      .filter((parameter) => parameter.in === 'body')
      .map((parameter) => ({ kind: RouteParamtypes.BODY, type: parameter.type })),
  ];
}

/**
 * Completes an operation's inputs from the DTOs its handler validates: the request body is the
 * DTO's component, and a query or path DTO becomes one parameter per field, with the field's
 * schema and whether it is required. (@nestjs/swagger reads only its own `@ApiProperty`
 * annotations, which the gateway's DTOs do not carry.)
 */
export function describeInputs(
  operation: OpenApiOperation,
  route: RouteHandler,
  dtos: DtoSchemas,
): void {
  for (const { kind, type } of dtoArguments(route)) {
    if (!DtoSchemas.describes(type)) continue;
    if (kind === RouteParamtypes.BODY) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: dtos.ref(type) } },
      };
    } else if (kind === RouteParamtypes.QUERY || kind === RouteParamtypes.PARAM) {
      addParameters(
        operation,
        kind === RouteParamtypes.QUERY ? 'query' : 'path',
        dtos.schemaOf(type),
      );
    }
  }
}

function addParameters(
  operation: OpenApiOperation,
  where: 'query' | 'path',
  schema: JsonSchema,
): void {
  const parameters = (operation.parameters ??= []);
  const required = new Set((schema.required ?? []) as string[]);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, property] of Object.entries(properties)) {
    const parameter: OpenApiParameter = {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      schema: property,
    };
    const index = parameters.findIndex((p) => p.name === name && p.in === where);
    if (index >= 0) parameters[index] = parameter;
    else parameters.push(parameter);
  }
}
