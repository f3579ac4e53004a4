import { Inject, Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/server';
import { MCP_MODULE_OPTIONS, type McpModuleOptions } from './mcp.options.js';
import { McpToolsHandler } from './mcp-tools.handler.js';

/**
 * Builds the SDK's low-level MCP Server with the gateway's handlers; one Server serves one
 * legacy session, one legacy stateless POST or one 2026-07-28 request (the SDK binds the era
 * to the instance). The low-level Server (not McpServer) because the tool list is not fixed: it
 * is the toolset of whichever tenant a request names.
 */
@Injectable()
export class McpServerFactory {
  private readonly info: { name: string; version: string };

  constructor(
    private readonly tools: McpToolsHandler,
    @Inject(MCP_MODULE_OPTIONS) options: McpModuleOptions,
  ) {
    this.info = { name: 'svc-gateway', version: options.version ?? '0.0.0' };
  }

  create(): Server {
    const server = new Server(this.info, {
      capabilities: { tools: { listChanged: true } },
    });
    server.setRequestHandler('tools/list', (_request, ctx) => this.tools.list(ctx));
    server.setRequestHandler('tools/call', (request, ctx) => this.tools.call(request, ctx));
    return server;
  }
}
