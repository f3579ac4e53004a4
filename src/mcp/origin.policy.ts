import type { IncomingHttpHeaders } from 'node:http';
import type { McpConfig } from '../platform/config/gateway-config.js';

const LOOPBACK_NAME = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/i;

/** `example.com:8080` → `example.com`; `[::1]:8080` → `[::1]`. */
function hostname(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

function originHostname(origin: string): string | null {
  try {
    return new URL(origin).hostname;
  } catch {
    return null; // `null` (sandboxed frames, file://) or garbage
  }
}

/**
 * DNS-rebinding protection for the MCP endpoint. A browser page on another site can make
 * requests to a server on the user's machine by pointing its own DNS name at 127.0.0.1; the
 * request then carries that site's `Host` (and on POST its `Origin`). So:
 * - `Origin`: absent is fine (not a browser); otherwise it must be listed in
 *   SVC_MCP_ALLOWED_ORIGINS, or, with no list, be a loopback origin (a local tool's page).
 * - `Host`: checked against SVC_MCP_ALLOWED_HOSTS when set (`name` matches any port,
 *   `name:port` only that port); with no list, only loopback names are accepted while the
 *   gateway is bound to a loopback address, and any name otherwise (the API key guards those).
 * `*` in either list turns that check off.
 */
export class OriginPolicy {
  private readonly hosts?: ReadonlySet<string>;
  private readonly origins?: ReadonlySet<string>;
  private readonly loopbackOnlyHosts: boolean;

  constructor(config: Pick<McpConfig, 'allowedHosts' | 'allowedOrigins'>, bindHost: string) {
    this.hosts = config.allowedHosts && new Set(config.allowedHosts);
    this.origins = config.allowedOrigins && new Set(config.allowedOrigins);
    this.loopbackOnlyHosts = LOOPBACK_NAME.test(bindHost);
  }

  /** Why the request is refused, or null when it may proceed. */
  refusal(headers: IncomingHttpHeaders): string | null {
    const host = headers.host?.toLowerCase();
    if (!this.hostAllowed(host))
      return `Forbidden: Host ${JSON.stringify(host ?? '')} is not allowed`;
    const origin = headers.origin?.toLowerCase();
    if (origin !== undefined && !this.originAllowed(origin)) {
      return `Forbidden: Origin ${JSON.stringify(origin)} is not allowed`;
    }
    return null;
  }

  private hostAllowed(host: string | undefined): boolean {
    if (this.hosts?.has('*')) return true;
    if (this.hosts)
      return host !== undefined && (this.hosts.has(host) || this.hosts.has(hostname(host)));
    if (!this.loopbackOnlyHosts) return true;
    return host !== undefined && LOOPBACK_NAME.test(hostname(host));
  }

  private originAllowed(origin: string): boolean {
    if (this.origins) return this.origins.has('*') || this.origins.has(origin);
    const name = originHostname(origin);
    return name !== null && LOOPBACK_NAME.test(name);
  }
}
