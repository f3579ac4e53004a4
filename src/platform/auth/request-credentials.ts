import type { Request } from 'express';

/** The API key from `Authorization: Bearer <key>` or `X-API-Key: <key>`, if any. */
export function presentedKey(req: Request): string | undefined {
  const authorization = req.headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  const header = req.headers['x-api-key'];
  return typeof header === 'string' && header.length > 0 ? header : undefined;
}

function asTenant(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/**
 * Every tenant the request names: `tenant_id` in the JSON body and the query, and the
 * `X-Tenant-Id` header. All of them are checked, so a bound key cannot name its own tenant in
 * one place and another tenant in the next.
 */
export function requestedTenants(req: Request): string[] {
  const body: unknown = req.body;
  const fromBody =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? asTenant((body as Record<string, unknown>).tenant_id)
      : [];
  return [...fromBody, ...asTenant(req.query.tenant_id), ...asTenant(req.headers['x-tenant-id'])];
}
