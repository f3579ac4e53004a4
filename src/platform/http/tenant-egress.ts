import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Agent } from 'undici';
import type { GatewayConfig } from '../config/gateway-config.js';
import { type EgressLookup, createEgressAgent } from './egress-agent.js';
import { parseAllowList } from './egress-allow-list.js';
import { EgressPolicy, isLoopbackHost } from './egress-policy.js';

/** Injection token of the resolver TenantEgress uses (the system's; tests map names). */
export const EGRESS_LOOKUP = Symbol('EgressLookup');

/**
 * Outgoing calls to destinations tenants choose (HTTP tools; later ones such as upstream MCP
 * servers and run webhooks should use it too): the full EgressPolicy, with private and loopback
 * addresses allowed only while the gateway listens on loopback (`server.host`, i.e. SVC_HOST or
 * `svc serve --host`) or when SVC_TOOL_ALLOWED_HOSTS lists them. `dispatcher()` enforces it on
 * every connection; `policy.checkUrl` answers registrations early.
 */
@Injectable()
export class TenantEgress implements OnApplicationShutdown {
  readonly policy: EgressPolicy;
  private agent?: Promise<Agent>;

  constructor(
    config: ConfigService<GatewayConfig, true>,
    @Inject(EGRESS_LOOKUP) lookup: EgressLookup,
  ) {
    const { allowedHosts } = config.get('tools', { infer: true });
    this.policy = new EgressPolicy({
      privateAllowed: isLoopbackHost(config.get('server', { infer: true }).host),
      allowList: allowedHosts && parseAllowList(allowedHosts),
      allowListSetting: 'SVC_TOOL_ALLOWED_HOSTS',
    });
    this.lookup = lookup;
  }

  private readonly lookup: EgressLookup;

  /** The pools every tenant-chosen call goes through, made with the first one (undici.ts). */
  dispatcher(): Promise<Agent> {
    this.agent ??= createEgressAgent(this.policy, this.lookup);
    return this.agent;
  }

  /** After every other hook: background runs may call tools until then. */
  async onApplicationShutdown(): Promise<void> {
    if (this.agent) await (await this.agent).close();
  }
}
