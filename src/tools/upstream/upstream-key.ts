import { createHash } from 'node:crypto';
import type { UpstreamTarget } from './upstream.types.js';

/**
 * Names one registration of an upstream exactly: whose (tenant, toolset, name) and how it is
 * reached (URL, headers). Re-registering with another URL or credential is another key, so
 * nothing connected or listed under the old one is used for it. A digest, so the header values
 * it covers are not kept in yet another place.
 */
export function upstreamKey(target: UpstreamTarget): string {
  const headers = Object.entries(target.headers).sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256')
    .update(JSON.stringify([target.tenantId, target.toolset, target.name, target.url, headers]))
    .digest('base64url');
}

/** Only the origin of a tenant's URL is logged: paths and queries may carry its secrets. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}
