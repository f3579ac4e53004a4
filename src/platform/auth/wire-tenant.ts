import type { Request } from 'express';
import { ProblemException } from '../http/problem.js';
import { MAX_TENANT_ID, isSafeIdentifier } from '../state/state-key.limits.js';
import { ANONYMOUS_ADMIN, type AuthenticatedRequest } from './principal.js';

function first(value: unknown): string | undefined {
  if (Array.isArray(value)) return first(value[0]);
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The tenant of a request on a wire whose body has no `tenant_id` of ours (the OpenAI-compatible
 * one): the key's own tenant, else `X-Tenant-Id`, else SVC_TENANT (CONTRACT 10). The AuthGuard
 * has already refused a tenant-bound key that names another tenant. None: 400.
 */
export function wireTenant(
  req: Request & AuthenticatedRequest,
  defaultTenant: string | undefined,
): string {
  const principal = req.principal ?? ANONYMOUS_ADMIN;
  const tenantId = principal.tenantId ?? first(req.headers['x-tenant-id']) ?? defaultTenant;
  if (tenantId === undefined) {
    throw new ProblemException(
      400,
      'a tenant is required: send X-Tenant-Id, use a tenant-bound key, or set SVC_TENANT',
      'tenant-required',
    );
  }
  if (tenantId.length > MAX_TENANT_ID || !isSafeIdentifier(tenantId)) {
    throw new ProblemException(
      400,
      `X-Tenant-Id must be at most ${MAX_TENANT_ID} characters without control characters`,
    );
  }
  return tenantId;
}
