import { HttpException, Injectable, Logger } from '@nestjs/common';
import type {
  CompleteRequest,
  CompleteResult,
  GetPromptRequest,
  GetPromptResult,
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  ReadResourceRequest,
  ReadResourceResult,
  ServerContext,
} from '@modelcontextprotocol/server';
import { PromptTemplates } from '../../catalog/prompts/prompt-templates.service.js';
import { RegisteredResources } from '../../catalog/resources/registered-resources.service.js';
import { ProtocolErrorCode } from '../../tools/mcp-sdk.js';
import { RpcError, toRpcError } from '../mcp-errors.js';
import { contextOf } from '../tenant-context.js';
import { BuiltInResources } from './built-in-resources.js';
import { UpstreamFeatures } from './upstream-features.js';

const isNotFound = (error: unknown) => error instanceof HttpException && error.getStatus() === 404;

/**
 * Prompts, resources and completions for whichever tenant a request carries, in either
 * protocol era: the tenant's registered prompt templates and resources, the gateway's own
 * documents (board cards, runs) as resource templates, and what the toolset's upstream MCP
 * servers offer. The tenant's own come first where names or URIs meet.
 */
@Injectable()
export class McpCatalogHandler {
  private readonly logger = new Logger('McpHost');

  constructor(
    private readonly prompts: PromptTemplates,
    private readonly resources: RegisteredResources,
    private readonly builtIns: BuiltInResources,
    private readonly upstreams: UpstreamFeatures,
  ) {}

  listPrompts(ctx: ServerContext): Promise<ListPromptsResult> {
    const { tenantId, toolset } = contextOf(ctx.http?.authInfo);
    return this.guard(async () => {
      const [own, upstream] = await Promise.all([
        this.prompts.listMcp(tenantId),
        this.upstreams.prompts(tenantId, toolset),
      ]);
      const names = new Set(own.map((prompt) => prompt.name));
      return { prompts: [...own, ...upstream.filter((prompt) => !names.has(prompt.name))] };
    });
  }

  getPrompt(request: GetPromptRequest, ctx: ServerContext): Promise<GetPromptResult> {
    const { tenantId, toolset } = contextOf(ctx.http?.authInfo);
    const { name, arguments: args } = request.params;
    return this.guard(async () => {
      try {
        return await this.prompts.render(tenantId, name, args ?? {});
      } catch (error) {
        if (!isNotFound(error)) throw error;
        const upstream = await this.upstreams.prompt(tenantId, toolset, name, args ?? {});
        if (upstream) return upstream;
        throw error;
      }
    });
  }

  listResources(ctx: ServerContext): Promise<ListResourcesResult> {
    const { tenantId, toolset } = contextOf(ctx.http?.authInfo);
    return this.guard(async () => {
      const [own, upstream] = await Promise.all([
        this.resources.resources(tenantId),
        this.upstreams.resources(tenantId, toolset),
      ]);
      const uris = new Set(own.map((resource) => resource.uri));
      return { resources: [...own, ...upstream.filter((resource) => !uris.has(resource.uri))] };
    });
  }

  listTemplates(ctx: ServerContext): Promise<ListResourceTemplatesResult> {
    const context = contextOf(ctx.http?.authInfo);
    return this.guard(async () => ({
      resourceTemplates: [
        ...(await this.resources.templates(context.tenantId)),
        ...this.builtIns.templates(context),
        ...(await this.upstreams.templates(context.tenantId, context.toolset)),
      ],
    }));
  }

  readResource(request: ReadResourceRequest, ctx: ServerContext): Promise<ReadResourceResult> {
    const context = contextOf(ctx.http?.authInfo);
    const { uri } = request.params;
    return this.guard(async () => {
      const found =
        (await this.resources.read(context.tenantId, uri)) ??
        (await this.builtIns.read(context, uri)) ??
        (await this.upstreams.read(context.tenantId, context.toolset, uri));
      if (found) return found;
      throw new RpcError(ProtocolErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
    });
  }

  /**
   * Prompt arguments complete from their declared values (a tenant's prompt) or from the
   * upstream that offers the prompt; resource template variables have none.
   */
  complete(request: CompleteRequest, ctx: ServerContext): Promise<CompleteResult> {
    const { tenantId, toolset } = contextOf(ctx.http?.authInfo);
    const { ref, argument } = request.params;
    const none = { values: [], total: 0, hasMore: false };
    return this.guard(async () => {
      if (ref.type !== 'ref/prompt') return { completion: none };
      if (await this.prompts.has(tenantId, ref.name)) {
        return {
          completion: await this.prompts.complete(
            tenantId,
            ref.name,
            argument.name,
            argument.value,
          ),
        };
      }
      const upstream = await this.upstreams
        .complete(tenantId, toolset, ref.name, { name: argument.name, value: argument.value })
        .catch(() => null);
      return { completion: upstream ?? none };
    });
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toRpcError(error, this.logger);
    }
  }
}
