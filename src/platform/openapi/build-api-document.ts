import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { PACKAGE } from '../config/package-info.js';
import { DtoSchemas } from './dto-schemas.js';
import { conformTo31, pruneSchemas } from './oas31.js';
import { KEY_REQUIRED, SECURITY_SCHEMES, describeAccess } from './operation-access.js';
import { describeInputs } from './operation-inputs.js';
import { type OpenApiDocument, operationsOf } from './openapi.types.js';
import { WireErrors } from '../http/wire-errors.js';
import { PROBLEM_RESPONSES, PROBLEM_SCHEMA, describeErrors } from './problem-responses.js';
import { describeSuccess } from './response-schema.js';
import { handlerOf, routeHandlers } from './route-handlers.js';

const DESCRIPTION = [
  'Runs tool-using AI agents for many tenants. Send the API key as `Authorization: Bearer <key>`',
  'or `X-API-Key: <key>` (routes marked public need none). Errors are RFC 9457 problem details',
  '(`application/problem+json`), except on the MCP and OpenAI wires, which answer in their own',
  'protocol. Generated from the running routes and the DTOs they validate.',
].join(' ');

/**
 * The OpenAPI 3.1 description of the app's routes, built once on first use (ApiDescription;
 * this module is imported then) from what Nest routes by:
 * @nestjs/swagger reads the controllers (paths, methods, parameters named in decorators, bodies);
 * the passes here add what the gateway's own metadata says: DTO schemas from class-validator
 * rules, query and path parameters of DTOs, who may call (`@Public`, `@RequirePermissions`),
 * declared response bodies, and problem-details errors. Nothing is listed by hand, so a route
 * another module adds is described as soon as it is mounted.
 */
export function buildApiDocument(app: INestApplication): OpenApiDocument {
  const document = describeRoutes(app);
  // The conventional order of the top-level fields, for a reader of the JSON.
  const { openapi, info, paths, components, ...rest } = document;
  return { openapi, info, ...rest, paths, components };
}

function describeRoutes(app: INestApplication): OpenApiDocument {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle(PACKAGE.name)
    .setVersion(PACKAGE.version)
    .setDescription(DESCRIPTION)
    .build();
  // A plain JSON copy: the passes below edit it freely.
  const document = JSON.parse(
    JSON.stringify(SwaggerModule.createDocument(app, config)),
  ) as OpenApiDocument;
  document.components ??= { schemas: {} };
  document.components.schemas ??= {};
  const handlers = routeHandlers(app);
  const wires = wireErrorsOf(app);
  const dtos = new DtoSchemas();
  for (const { path, method, operation } of operationsOf(document)) {
    const route = handlerOf(handlers, operation.operationId);
    if (!route) throw new Error(`no handler found for ${method.toUpperCase()} ${path}`);
    describeInputs(operation, route, dtos);
    describeAccess(operation, route);
    describeSuccess(operation, route, document);
    describeErrors(operation, route, wires?.owns(method, path) ?? false);
  }
  Object.assign(document.components.schemas, dtos.components, { Problem: PROBLEM_SCHEMA });
  document.components.responses = PROBLEM_RESPONSES;
  document.components.securitySchemes = SECURITY_SCHEMES;
  document.security = KEY_REQUIRED;
  conformTo31(document);
  pruneSchemas(document);
  return document;
}

/** The app's WireErrors, when it has one (an app without the composed platform has none). */
function wireErrorsOf(app: INestApplication): WireErrors | undefined {
  try {
    return app.get(WireErrors, { strict: false });
  } catch {
    return undefined;
  }
}
