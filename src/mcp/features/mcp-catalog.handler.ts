import { Injectable, Logger } from '@nestjs/common';
import {
  type CompleteRequest,
  type CompleteResult,
  type GetPromptRequest,
  type GetPromptResult,
  type ListPromptsResult,
  type ListResourceTemplatesResult,
  type ListResourcesResult,
  ProtocolErrorCode,
  type ReadResourceRequest,
  type ReadResourceResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { PromptTemplates } from '../../catalog/prompts/prompt-templates.service.js';
import { RegisteredResources } from '../../catalog/resources/registered-resources.service.js';
import { RpcError, toRpcError } from '../mcp-errors.js';
import { contextOf } from '../tenant-context.js';
import { BuiltInResources } from './built-in-resources.js';

/**
 * Prompts, resources and completions for whichever tenant a request carries, in either
 * protocol era: the tenant's registered prompt templates and resources, and the gateway's own
 * documents (board cards, runs) as resource templates.
 */
@Injectable()
export class McpCatalogHandler {
  private readonly logger = new Logger('McpHost');

  constructor(
    private readonly prompts: PromptTemplates,
    private readonly resources: RegisteredResources,
    private readonly builtIns: BuiltInResources,
  ) {}

  listPrompts(ctx: ServerContext): Promise<ListPromptsResult> {
    const { tenantId } = contextOf(ctx.http?.authInfo);
    return this.guard(async () => ({ prompts: await this.prompts.listMcp(tenantId) }));
  }

  getPrompt(request: GetPromptRequest, ctx: ServerContext): Promise<GetPromptResult> {
    const { tenantId } = contextOf(ctx.http?.authInfo);
    const { name, arguments: args } = request.params;
    return this.guard(() => this.prompts.render(tenantId, name, args ?? {}));
  }

  listResources(ctx: ServerContext): Promise<ListResourcesResult> {
    const { tenantId } = contextOf(ctx.http?.authInfo);
    return this.guard(async () => ({ resources: await this.resources.resources(tenantId) }));
  }

  listTemplates(ctx: ServerContext): Promise<ListResourceTemplatesResult> {
    const context = contextOf(ctx.http?.authInfo);
    return this.guard(async () => ({
      resourceTemplates: [
        ...(await this.resources.templates(context.tenantId)),
        ...this.builtIns.templates(context),
      ],
    }));
  }

  readResource(request: ReadResourceRequest, ctx: ServerContext): Promise<ReadResourceResult> {
    const context = contextOf(ctx.http?.authInfo);
    const { uri } = request.params;
    return this.guard(async () => {
      const found =
        (await this.resources.read(context.tenantId, uri)) ??
        (await this.builtIns.read(context, uri));
      if (found) return found;
      throw new RpcError(ProtocolErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
    });
  }

  /** Prompt arguments complete from their declared values; template variables have none. */
  complete(request: CompleteRequest, ctx: ServerContext): Promise<CompleteResult> {
    const { tenantId } = contextOf(ctx.http?.authInfo);
    const { ref, argument } = request.params;
    return this.guard(async () => {
      if (ref.type !== 'ref/prompt')
        return { completion: { values: [], total: 0, hasMore: false } };
      const completion = await this.prompts.complete(
        tenantId,
        ref.name,
        argument.name,
        argument.value,
      );
      return { completion };
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
