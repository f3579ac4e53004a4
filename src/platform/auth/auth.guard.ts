import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { ApiKeyRegistry } from './api-key-registry.service.js';
import { AuthFailures } from './auth-failures.service.js';
import { IS_PUBLIC, REQUIRED_PERMISSIONS } from './auth.decorators.js';
import { permits } from './permissions.js';
import { ANONYMOUS_ADMIN, type AuthenticatedRequest, type Principal } from './principal.js';
import { presentedKey, requestedTenants } from './request-credentials.js';

/** A valid key without a permission the route needs (RFC 6750's `insufficient_scope`). */
export class MissingPermissionException extends ForbiddenException {
  constructor(readonly missing: readonly string[]) {
    super(`this key lacks the permission ${missing.join(', ')}`);
  }
}

/** What a route asks of its caller, read from its metadata once per handler and class. */
interface RouteAccess {
  isPublic: boolean;
  required: readonly string[];
}

/**
 * The one global guard: authenticates the API key, checks the route's required permissions and
 * keeps a tenant-bound key inside its tenant. 401 without or with a wrong key (the problem filter
 * adds `WWW-Authenticate: Bearer`), 403 for a valid key that is not allowed, 429 before any of
 * that when the client address has failed too often (AuthFailures).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly registry: ApiKeyRegistry,
    private readonly failures: AuthFailures,
  ) {}

  /** Route metadata by controller class and handler (a handler may be inherited by classes). */
  private readonly routes = new Map<object, Map<object, RouteAccess>>();

  canActivate(context: ExecutionContext): boolean {
    const access = this.accessOf(context.getClass(), context.getHandler());
    if (access.isPublic) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<Request & AuthenticatedRequest>();
    if (this.registry.enabled) this.failures.refuseIfBlocked(req, http.getResponse<Response>());
    try {
      return this.check(req, access.required);
    } catch (error) {
      if (!(error instanceof UnauthorizedException || error instanceof ForbiddenException)) {
        throw error;
      }
      this.failures.failed(req, {
        status: error instanceof UnauthorizedException ? 401 : 403,
        reason: error.message,
        tenantId: req.principal?.tenantId,
        actor: req.principal?.keyId,
      });
      throw error;
    }
  }

  private accessOf(
    controller: ReturnType<ExecutionContext['getClass']>,
    handler: ReturnType<ExecutionContext['getHandler']>,
  ): RouteAccess {
    let handlers = this.routes.get(controller);
    if (!handlers) this.routes.set(controller, (handlers = new Map<object, RouteAccess>()));
    let access = handlers.get(handler);
    if (!access) {
      const targets = [handler, controller];
      access = {
        isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) === true,
        required:
          this.reflector.getAllAndOverride<string[] | undefined>(REQUIRED_PERMISSIONS, targets) ??
          [],
      };
      handlers.set(handler, access);
    }
    return access;
  }

  private check(req: Request & AuthenticatedRequest, required: readonly string[]): boolean {
    const principal = this.authenticate(req);
    req.principal = principal;
    const missing = required.filter((permission) => !permits(principal.permissions, permission));
    if (missing.length > 0) {
      throw new MissingPermissionException(missing);
    }
    assertTenantAllowed(principal, requestedTenants(req));
    return true;
  }

  private authenticate(req: Request): Principal {
    if (!this.registry.enabled) return ANONYMOUS_ADMIN;
    const key = presentedKey(req);
    if (key === undefined) {
      throw new UnauthorizedException(
        'an API key is required (Authorization: Bearer <key> or X-API-Key)',
      );
    }
    const principal = this.registry.authenticate(key);
    if (!principal) throw new UnauthorizedException('the API key is not valid');
    return principal;
  }
}

/** A key bound to a tenant may only name that tenant (on every surface). */
export function assertTenantAllowed(principal: Principal, tenants: readonly string[]): void {
  const bound = principal.tenantId;
  if (bound === undefined) return;
  const other = tenants.find((tenant) => tenant !== bound);
  if (other !== undefined) {
    throw new ForbiddenException(`this key may only act for tenant ${JSON.stringify(bound)}`);
  }
}
