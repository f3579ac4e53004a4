import { Injectable } from '@nestjs/common';
import { TenantEgress } from '../platform/http/tenant-egress.js';

/**
 * What a tool endpoint URL may be, as far as the URL alone tells (see EgressPolicy.checkUrl):
 * registrations are answered 400 with the reason. The decision that counts is made again on the
 * resolved address of every connection by TenantEgress's dispatcher.
 */
@Injectable()
export class ToolEndpointPolicy {
  constructor(private readonly egress: TenantEgress) {}

  /** Why the URL may not be called, or null when it may (so far as the URL tells). */
  refusal(url: string): string | null {
    const refusal = this.egress.policy.checkUrl(url);
    if (!refusal) return null;
    if (refusal.kind === 'forbidden') {
      return `tool endpoints may not point at link-local, metadata or reserved addresses: ${refusal.reason}`;
    }
    return `tool endpoint refused: ${refusal.reason}`;
  }
}
