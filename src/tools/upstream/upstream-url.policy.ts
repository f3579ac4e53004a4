import { Injectable } from '@nestjs/common';
import { TenantEgress } from '../../platform/http/tenant-egress.js';

/**
 * What an upstream MCP server URL may be, as far as the URL alone tells: the SSRF policy of
 * HTTP tools (TenantEgress), asked at registration (400) and again before every connection,
 * since the allow-list may have narrowed since. Every connection's resolved address is then
 * checked by TenantEgress's dispatcher.
 */
@Injectable()
export class UpstreamUrlPolicy {
  constructor(private readonly egress: TenantEgress) {}

  /** Why the URL may not be reached, or null when it may (so far as the URL tells). */
  refusal(url: string): string | null {
    const refusal = this.egress.policy.checkUrl(url);
    if (!refusal) return null;
    if (refusal.kind === 'forbidden') {
      return `upstream MCP servers may not be at link-local, metadata or reserved addresses: ${refusal.reason}`;
    }
    return `upstream MCP server refused: ${refusal.reason}`;
  }
}
