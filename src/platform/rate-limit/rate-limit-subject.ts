import type { Request } from 'express';
import { requestedTenants } from '../auth/request-credentials.js';
import type { AuthenticatedRequest } from '../auth/principal.js';

/**
 * Whose budget a request spends: the tenant it names, else the key's own tenant, else the key.
 * Null for public routes (the guard left no principal), which are not limited.
 */
export function rateLimitSubject(req: Request & AuthenticatedRequest): string | null {
  const principal = req.principal;
  if (!principal) return null;
  const tenant = requestedTenants(req)[0] ?? principal.tenantId;
  return tenant !== undefined ? `tenant:${tenant}` : `key:${principal.keyId}`;
}
