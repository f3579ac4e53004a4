import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Client, RequestOptions } from '@modelcontextprotocol/client';
import type {
  CompleteResult,
  GetPromptResult,
  ListResourceTemplatesResult,
  Prompt,
  ReadResourceResult,
  Resource,
} from '@modelcontextprotocol/server';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { ToolCatalog } from '../../tools/tool-catalog.service.js';
import { UpstreamConnections } from '../../tools/upstream/upstream-connections.js';
import type { ResolvedUpstream } from '../../tools/upstream/upstream-catalog.js';

type TemplateEntry = ListResourceTemplatesResult['resourceTemplates'][number];

/**
 * The prompts and resources of a toolset's upstream MCP servers, beside the tenant's own:
 * prompts under the upstream's prefix (as its tools are), resources under their own URIs (a
 * URI names its server's document; renaming it would break every link to it). Asked live,
 * through the pooled connection, with the tool timeout; an upstream that fails or offers none
 * adds nothing and never fails the request. Only upstreams whose tools listed fine are asked.
 */
@Injectable()
export class UpstreamFeatures {
  private readonly logger = new Logger('UpstreamMcp');
  private readonly timeoutMs: number;

  constructor(
    config: ConfigService<GatewayConfig, true>,
    private readonly catalog: ToolCatalog,
    private readonly connections: UpstreamConnections,
  ) {
    this.timeoutMs = config.get('tools', { infer: true }).timeoutMs;
  }

  async prompts(tenantId: string, toolset: string): Promise<Prompt[]> {
    const lists = await this.each(tenantId, toolset, async (upstream, client, options) => {
      if (!client.getServerCapabilities()?.prompts) return [];
      const { prompts } = await client.listPrompts(undefined, options);
      return prompts.map((prompt) => ({ ...prompt, name: `${upstream.prefix}${prompt.name}` }));
    });
    return lists.flat();
  }

  /** `prompts/get` of an upstream prompt, or null when no upstream's prefix matches `name`. */
  async prompt(
    tenantId: string,
    toolset: string,
    name: string,
    args: Record<string, string>,
  ): Promise<GetPromptResult | null> {
    const owner = await this.owner(tenantId, toolset, name);
    if (!owner) return null;
    return this.ask(owner.upstream, (client, options) =>
      client.getPrompt({ name: owner.name, arguments: args }, options),
    );
  }

  async complete(
    tenantId: string,
    toolset: string,
    prompt: string,
    argument: { name: string; value: string },
  ): Promise<CompleteResult['completion'] | null> {
    const owner = await this.owner(tenantId, toolset, prompt);
    if (!owner) return null;
    const answer = await this.ask(owner.upstream, (client, options) =>
      client.complete({ ref: { type: 'ref/prompt', name: owner.name }, argument }, options),
    );
    return answer.completion;
  }

  async resources(tenantId: string, toolset: string): Promise<Resource[]> {
    const lists = await this.each(tenantId, toolset, async (_upstream, client, options) =>
      client.getServerCapabilities()?.resources
        ? (await client.listResources(undefined, options)).resources
        : [],
    );
    return lists.flat();
  }

  async templates(tenantId: string, toolset: string): Promise<TemplateEntry[]> {
    const lists = await this.each(tenantId, toolset, async (_upstream, client, options) =>
      client.getServerCapabilities()?.resources
        ? (await client.listResourceTemplates(undefined, options)).resourceTemplates
        : [],
    );
    return lists.flat();
  }

  /** The first upstream that can read `uri` (in upstream name order), or null. */
  async read(tenantId: string, toolset: string, uri: string): Promise<ReadResourceResult | null> {
    for (const upstream of await this.available(tenantId, toolset)) {
      try {
        return await this.ask(upstream, (client, options) => client.readResource({ uri }, options));
      } catch {
        // Not this one's: the next may have it.
      }
    }
    return null;
  }

  private async available(tenantId: string, toolset: string): Promise<ResolvedUpstream[]> {
    const found = await this.catalog.find(tenantId, toolset);
    return (found?.upstreams ?? []).filter((upstream) => upstream.status === 'ok');
  }

  /** The upstream whose prefix starts `name`, and the name it knows the prompt by. */
  private async owner(tenantId: string, toolset: string, name: string) {
    const upstream = (await this.available(tenantId, toolset)).find((candidate) =>
      name.startsWith(candidate.prefix),
    );
    return upstream && { upstream, name: name.slice(upstream.prefix.length) };
  }

  private async each<T>(
    tenantId: string,
    toolset: string,
    work: (upstream: ResolvedUpstream, client: Client, options: RequestOptions) => Promise<T[]>,
  ): Promise<T[][]> {
    const upstreams = await this.available(tenantId, toolset);
    return Promise.all(
      upstreams.map((upstream) =>
        this.ask(upstream, (client, options) => work(upstream, client, options)).catch(
          (error: unknown) => {
            // The message only: an error object may carry the request, headers included.
            const reason = error instanceof Error ? error.message : String(error);
            this.logger.warn(
              { upstream: upstream.name, tenant_id: tenantId, toolset, reason },
              'upstream MCP listing failed',
            );
            return [] as T[];
          },
        ),
      ),
    );
  }

  private ask<T>(
    upstream: ResolvedUpstream,
    work: (client: Client, options: RequestOptions) => Promise<T>,
  ): Promise<T> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    return this.connections.use(upstream.target, signal, (client) =>
      work(client, { signal, timeout: this.timeoutMs }),
    );
  }
}
