import { Inject, Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/server';
import { CatalogChanges } from '../catalog/catalog-changes.js';
import { ClientLogLevel } from './features/client-log-level.js';
import { McpCatalogHandler } from './features/mcp-catalog.handler.js';
import { ResourceSubscriptions } from './features/resource-subscriptions.js';
import { MCP_MODULE_OPTIONS, type McpModuleOptions } from './mcp.options.js';
import { McpToolsHandler } from './mcp-tools.handler.js';
import { contextOf } from './tenant-context.js';

/**
 * Builds the SDK's low-level MCP Server with the gateway's handlers; one Server serves one
 * legacy session, one legacy stateless POST or one 2026-07-28 request (the SDK binds the era
 * to the instance). The low-level Server (not McpServer) because what it lists is not fixed:
 * it is the toolset, prompts and resources of whichever tenant a request names.
 */
@Injectable()
export class McpServerFactory {
  private readonly info: { name: string; version: string };

  constructor(
    private readonly tools: McpToolsHandler,
    private readonly catalog: McpCatalogHandler,
    private readonly changes: CatalogChanges,
    @Inject(MCP_MODULE_OPTIONS) options: McpModuleOptions,
  ) {
    this.info = { name: 'svc-gateway', version: options.version ?? '0.0.0' };
  }

  create(): Server {
    const server = new Server(this.info, {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
        logging: {},
      },
    });
    const catalog = this.catalog;
    const logLevel = new ClientLogLevel();
    server.setRequestHandler('logging/setLevel', (request) => {
      logLevel.set(request.params.level);
      return {};
    });
    server.setRequestHandler('tools/list', (_request, ctx) => this.tools.list(ctx));
    server.setRequestHandler('tools/call', (request, ctx) =>
      this.tools.call(request, ctx, logLevel),
    );
    server.setRequestHandler('prompts/list', (_request, ctx) => catalog.listPrompts(ctx));
    server.setRequestHandler('prompts/get', (request, ctx) => catalog.getPrompt(request, ctx));
    server.setRequestHandler('resources/list', (_request, ctx) => catalog.listResources(ctx));
    server.setRequestHandler('resources/templates/list', (_request, ctx) =>
      catalog.listTemplates(ctx),
    );
    server.setRequestHandler('resources/read', (request, ctx) =>
      catalog.readResource(request, ctx),
    );
    server.setRequestHandler('completion/complete', (request, ctx) =>
      catalog.complete(request, ctx),
    );
    const subscriptions = new ResourceSubscriptions(server, this.changes);
    server.setRequestHandler('resources/subscribe', (request, ctx) => {
      subscriptions.subscribe(contextOf(ctx.http?.authInfo).tenantId, request.params.uri);
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', (request) => {
      subscriptions.unsubscribe(request.params.uri);
      return {};
    });
    const onclose = server.onclose;
    server.onclose = () => {
      subscriptions.close();
      onclose?.();
    };
    return server;
  }
}
