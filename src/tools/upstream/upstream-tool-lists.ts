import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Tool } from '@modelcontextprotocol/client';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { type Listing, ListingCache } from './listing-cache.js';
import { UpstreamConnections } from './upstream-connections.js';
import { classifyUpstreamFailure } from './upstream-failure.js';
import { originOf, upstreamKey } from './upstream-key.js';
import {
  MAX_UPSTREAM_LISTING_BYTES,
  MAX_UPSTREAM_LISTINGS,
  MAX_UPSTREAM_TOOLS_LISTED,
  UPSTREAM_FAILURE_TTL_MS,
} from './upstream.limits.js';
import type { UpstreamTool } from './upstream-names.js';
import { UpstreamUrlPolicy } from './upstream-url.policy.js';
import type { UpstreamTarget } from './upstream.types.js';

/** A listing that failed, with what the toolset's description may say about it. */
class ListingFailed extends Error {}

/** The parts of an upstream's tool the gateway uses; the rest is not kept. */
function upstreamTool(tool: Tool): UpstreamTool {
  return {
    name: tool.name,
    ...(tool.title !== undefined && { title: tool.title }),
    ...(tool.description !== undefined && { description: tool.description }),
    inputSchema: tool.inputSchema,
    ...(tool.annotations && { annotations: tool.annotations }),
    ...(tool.outputSchema && { outputSchema: tool.outputSchema }),
    ...(tool.icons && { icons: tool.icons }),
  };
}

function kept(tools: Tool[]): UpstreamTool[] {
  return tools.slice(0, MAX_UPSTREAM_TOOLS_LISTED).map(upstreamTool);
}

/** Hears that an upstream's tools changed (so the gateway's own MCP clients can be told). */
export type UpstreamChangeListener = (target: UpstreamTarget) => void;

/**
 * The tools of tenants' upstream MCP servers, cached per registration (ListingCache): listed
 * through the shared connection with SVC_TOOL_TIMEOUT_MS, refreshed after
 * SVC_UPSTREAM_TOOLS_TTL_MS and whenever a connection hears `notifications/tools/list_changed`.
 * A failure is a listing with the reason, never an exception: the rest of the toolset lists.
 */
@Injectable()
export class UpstreamToolLists implements OnModuleDestroy {
  private readonly logger = new Logger('UpstreamMcp');
  private readonly cache: ListingCache;
  private readonly timeoutMs: number;
  private readonly listeners = new Set<UpstreamChangeListener>();
  private readonly unsubscribe: () => void;

  constructor(
    config: ConfigService<GatewayConfig, true>,
    private readonly connections: UpstreamConnections,
    private readonly urls: UpstreamUrlPolicy,
  ) {
    const { timeoutMs, upstreamListTtlMs } = config.get('tools', { infer: true });
    this.timeoutMs = timeoutMs;
    this.cache = new ListingCache({
      ttlMs: upstreamListTtlMs,
      failureTtlMs: Math.min(UPSTREAM_FAILURE_TTL_MS, upstreamListTtlMs),
      capacity: MAX_UPSTREAM_LISTINGS,
      maxBytes: MAX_UPSTREAM_LISTING_BYTES,
    });
    this.unsubscribe = connections.onToolsChanged((target, tools) => {
      this.cache.replace(upstreamKey(target), kept(tools));
      for (const listener of this.listeners) listener(target);
    });
  }

  onChange(listener: UpstreamChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(target: UpstreamTarget): Promise<Listing> {
    return this.cache.get(
      upstreamKey(target),
      () => this.fetch(target),
      (error) => (error instanceof ListingFailed ? error.message : 'upstream MCP server unusable'),
    );
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }

  private async fetch(target: UpstreamTarget): Promise<UpstreamTool[]> {
    const refusal = this.urls.refusal(target.url);
    if (refusal) throw new ListingFailed(refusal);
    const timeout = AbortSignal.timeout(this.timeoutMs);
    try {
      const { tools } = await this.connections.use(target, timeout, (client) =>
        client.listTools(undefined, {
          signal: timeout,
          timeout: this.timeoutMs,
          cacheMode: 'refresh',
        }),
      );
      return kept(tools);
    } catch (error) {
      const failure = classifyUpstreamFailure(error, timeout.aborted, this.timeoutMs);
      if (failure.kind !== 'answered') this.connections.discard(target);
      this.logger.warn(
        {
          reason: failure.kind === 'unreachable' ? failure.reason : failure.detail,
          tenant_id: target.tenantId,
          toolset: target.toolset,
          upstream: target.name,
          endpoint: originOf(target.url),
        },
        'upstream MCP server could not be listed',
      );
      throw new ListingFailed(failure.detail);
    }
  }
}
