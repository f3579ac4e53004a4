import type { Request } from 'express';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { ANONYMOUS_ADMIN, type AuthenticatedRequest } from '../platform/auth/principal.js';
import { MAX_TENANT_ID, isSafeIdentifier } from '../platform/state/state-key.limits.js';
import { ProtocolErrorCode as ErrorCode } from '../tools/mcp-sdk.js';
import { DEFAULT_TOOLSET } from '../tools/tool.limits.js';
import { RpcError } from './mcp-errors.js';

/** Whose tools one MCP request sees and who asked (CONTRACT 6). */
export interface McpContext {
  tenantId: string;
  toolset: string;
  /** The key id, for the audit trail. */
  actor: string;
  /** What the key may do (a built-in tool may need more than `tools:call`). */
  permissions: readonly string[];
}

function first(value: unknown): string | undefined {
  if (Array.isArray(value)) return first(value[0]);
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * Tenant: the key's own tenant, else `X-Tenant-Id`, else `?tenant_id=`, else SVC_TENANT. (The
 * AuthGuard has already refused a tenant-bound key that names another tenant.) Toolset:
 * `X-Toolset`, else `?toolset=`, else `default`. Returns an error message when no usable tenant
 * is named.
 */
export function resolveContext(
  req: Request & AuthenticatedRequest,
  defaultTenant: string | undefined,
): McpContext | string {
  const principal = req.principal ?? ANONYMOUS_ADMIN;
  const tenantId =
    principal.tenantId ??
    first(req.headers['x-tenant-id']) ??
    first(req.query.tenant_id) ??
    defaultTenant;
  if (tenantId === undefined) {
    return 'Bad Request: a tenant is required: send X-Tenant-Id (or ?tenant_id=), use a tenant-bound key, or set SVC_TENANT';
  }
  if (tenantId.length > MAX_TENANT_ID) {
    return `Bad Request: a tenant id has at most ${MAX_TENANT_ID} characters`;
  }
  const toolset = first(req.headers['x-toolset']) ?? first(req.query.toolset) ?? DEFAULT_TOOLSET;
  // Headers cannot carry control characters, but the query can (`?tenant_id=a%00b`).
  if (!isSafeIdentifier(tenantId) || !isSafeIdentifier(toolset)) {
    return 'Bad Request: a tenant id or toolset must not contain control characters';
  }
  return { tenantId, toolset, actor: principal.keyId, permissions: principal.permissions };
}

/**
 * The SDK hands `req.auth` to every request handler as `extra.authInfo`: that is how the
 * per-request tenant reaches the handlers of a Server shared by a session or a pool.
 */
export function toAuthInfo(context: McpContext): AuthInfo {
  return { token: '', clientId: context.actor, scopes: [], extra: { ...context } };
}

export function contextOf(authInfo: AuthInfo | undefined): McpContext {
  const extra = authInfo?.extra;
  const { tenantId, toolset, permissions } = extra ?? {};
  if (typeof tenantId !== 'string' || typeof toolset !== 'string') {
    // Only reachable if a request bypassed McpHttpHost: a bug, not the caller's fault.
    throw new RpcError(ErrorCode.InternalError, 'the request has no tenant context');
  }
  return {
    tenantId,
    toolset,
    actor: authInfo?.clientId ?? 'anonymous',
    permissions: Array.isArray(permissions)
      ? permissions.filter((p): p is string => typeof p === 'string')
      : [],
  };
}
