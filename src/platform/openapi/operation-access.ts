import { Reflector } from '@nestjs/core';
import { IS_PUBLIC, REQUIRED_PERMISSIONS } from '../auth/auth.decorators.js';
import type { JsonSchema, OpenApiOperation, SecurityRequirement } from './openapi.types.js';
import type { RouteHandler } from './route-handlers.js';

/** The two ways to present a key (CONTRACT section 2); either will do. */
export const SECURITY_SCHEMES: Record<string, JsonSchema> = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'The API key as a bearer token: `Authorization: Bearer <key>`.',
  },
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'The API key in the `X-API-Key` header.',
  },
};

/** The document's default: every operation needs a key unless it says otherwise. */
export const KEY_REQUIRED: SecurityRequirement[] = Object.keys(SECURITY_SCHEMES).map((name) => ({
  [name]: [],
}));

const reflector = new Reflector();

/** Whether the AuthGuard lets the route through without a key (`@Public()`). */
export function isPublic(route: RouteHandler): boolean {
  return (
    reflector.getAllAndOverride<boolean>(IS_PUBLIC, [route.handler, route.controller]) === true
  );
}

/**
 * Who may call an operation, read the way the AuthGuard reads it: a `@Public()` route needs no
 * key (`security: []`); any other needs one, and the permissions of `@RequirePermissions` are
 * listed in `x-permissions` and in the description.
 */
export function describeAccess(operation: OpenApiOperation, route: RouteHandler): void {
  if (isPublic(route)) {
    operation.security = [];
    return;
  }
  const permissions = reflector.getAllAndOverride<string[] | undefined>(REQUIRED_PERMISSIONS, [
    route.handler,
    route.controller,
  ]);
  if (!permissions?.length) return;
  operation['x-permissions'] = permissions;
  const needs = `Needs a key granting ${permissions.map((p) => `\`${p}\``).join(' and ')}.`;
  operation.description = operation.description ? `${operation.description}\n\n${needs}` : needs;
}
