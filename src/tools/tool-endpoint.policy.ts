import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { isIP } from 'node:net';
import type { GatewayConfig } from '../config/gateway-config.js';

/** Cloud metadata services answer on link-local addresses and these names. */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata']);

function isLinkLocal(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('169.254.');
  if (isIP(host) === 6)
    return /^fe[89ab]/i.test(host) || host.toLowerCase().startsWith('fd00:ec2:');
  return false;
}

function matches(host: string, pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
  return host === pattern;
}

/**
 * Where tenants' HTTP tools may point. Tenants choose the URLs and the gateway calls them from
 * inside the network, so cloud metadata endpoints are always refused, and SVC_TOOL_ALLOWED_HOSTS
 * narrows the rest to the hosts an operator allows.
 */
@Injectable()
export class ToolEndpointPolicy {
  private readonly allowed?: string[];

  constructor(config: ConfigService<GatewayConfig, true>) {
    this.allowed = config.get('tools', { infer: true }).allowedHosts;
  }

  /** Why the URL may not be called, or null when it may. */
  refusal(url: string): string | null {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isLinkLocal(host) || METADATA_HOSTS.has(host)) {
      return `tool endpoints may not point at link-local or metadata addresses (${host})`;
    }
    if (this.allowed && !this.allowed.some((pattern) => matches(host, pattern))) {
      return `host ${host} is not in SVC_TOOL_ALLOWED_HOSTS`;
    }
    return null;
  }
}
