import type { Request } from 'express';
import type { ServerCallContext, User } from '@a2a-js/sdk/server';
import type { A2AError } from '@a2a-js/sdk/errors';
import {
  ANONYMOUS_ADMIN,
  type AuthenticatedRequest,
  type Principal,
} from '../platform/auth/principal.js';
import { MAX_TENANT_ID, isSafeIdentifier } from '../platform/state/state-key.limits.js';

/** The protocol binding a request came in on: errors are written the way it writes them. */
export type A2ABinding = 'jsonrpc' | 'rest';

/**
 * Who calls over A2A, as the SDK's transport hands it to the request handler: the key's
 * principal (the AuthGuard already checked it), the agent the URL names, the binding, the
 * `X-Tenant-Id` header and where the gateway was reached (for the cards' URLs).
 */
export class A2ACaller implements User {
  /**
   * The error the request was answered with, as the handler threw it: the SDK writes a JSON-RPC
   * error's details only for its own error kinds, so the controller adds the gateway's (see
   * keepGatewayStatuses).
   */
  failure?: A2AError;

  constructor(
    readonly principal: Principal,
    readonly agent: string,
    readonly headerTenant: string | undefined,
    readonly baseUrl: string,
    /** `X-Toolset`: the toolset a run of the default agent uses (`default`). */
    readonly toolset: string = 'default',
    readonly binding: A2ABinding = 'jsonrpc',
  ) {}

  get isAuthenticated(): boolean {
    return this.principal !== ANONYMOUS_ADMIN;
  }

  get userName(): string {
    return this.principal.keyId;
  }
}

const TOOLSET = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * A tenant the caller may not name (`forbidden`: a tenant-bound key naming another tenant), or
 * none at all, or one that is no identifier: the request is refused with this text.
 */
export class A2ATenantError extends Error {
  constructor(
    message: string,
    readonly forbidden = false,
  ) {
    super(message);
  }
}

/** The agent a request's URL named, kept on the request (the SDK's router replaces params). */
const AGENT = Symbol('a2aAgent');
/** The caller the SDK made of a request, kept on it for the controller. */
const CALLER = Symbol('a2aCaller');

export function nameAgent(req: Request, agent: string): void {
  (req as Request & { [AGENT]?: string })[AGENT] = agent;
}

/** The SDK's `userBuilder` of one binding: the caller of one request on `/a2a/{agent}`. */
export function callerOf(req: Request & AuthenticatedRequest, binding?: A2ABinding): A2ACaller {
  const header = req.headers['x-tenant-id'];
  const toolset = req.headers['x-toolset'];
  const agent = (req as Request & { [AGENT]?: string })[AGENT] ?? 'default';
  const caller = new A2ACaller(
    req.principal ?? ANONYMOUS_ADMIN,
    agent,
    typeof header === 'string' && header.length > 0 ? header : undefined,
    `${req.protocol}://${req.get('host') ?? 'localhost'}`,
    typeof toolset === 'string' && TOOLSET.test(toolset) ? toolset : 'default',
    binding,
  );
  if (binding) (req as Request & { [CALLER]?: A2ACaller })[CALLER] = caller;
  return caller;
}

/** The caller the SDK made of `req`, once it did. */
export function callerBehind(req: Request): A2ACaller | undefined {
  return (req as Request & { [CALLER]?: A2ACaller })[CALLER];
}

/** The caller behind a request context (set by callerOf). */
export function callerIn(context: ServerCallContext): A2ACaller {
  const user = context.user;
  if (!(user instanceof A2ACaller)) throw new Error('an A2A request without its caller');
  return user;
}

/**
 * The tenant of an A2A request (CONTRACT 10): the key's own, else the request's `tenant` (the
 * JSON-RPC params' field, or the HTTP+JSON path's `/{tenant}/…`; the card's interface names it,
 * so SDK clients send it), else `X-Tenant-Id`, else SVC_TENANT. A tenant-bound key naming
 * another tenant, in any of these places, is refused.
 */
export function tenantOf(
  caller: A2ACaller,
  requested: string | undefined,
  defaultTenant: string | undefined,
): string {
  const bound = caller.principal.tenantId;
  if (bound !== undefined) {
    for (const named of [requested, caller.headerTenant]) {
      if (named && named !== bound) {
        throw new A2ATenantError(
          `this key may only act for tenant ${JSON.stringify(bound)}, not ${JSON.stringify(named.slice(0, MAX_TENANT_ID))}`,
          true,
        );
      }
    }
    return bound;
  }
  const tenant = requested || caller.headerTenant || defaultTenant;
  if (tenant === undefined) {
    throw new A2ATenantError(
      'a tenant is required: send the request field tenant or X-Tenant-Id, use a tenant-bound key, or set SVC_TENANT',
    );
  }
  if (tenant.length > MAX_TENANT_ID || !isSafeIdentifier(tenant)) {
    throw new A2ATenantError(
      `a tenant id has at most ${MAX_TENANT_ID} characters, without control characters`,
    );
  }
  return tenant;
}
