import { Inject, Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  RequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { MCP_MODULE_OPTIONS, type McpModuleOptions } from './mcp.options.js';
import { McpToolsHandler } from './mcp-tools.handler.js';

/*
 * Handlers are registered with schemas that check only the method, and validate their params
 * themselves: the SDK turns a params error caught by the registration schema into -32603
 * (internal error), where JSON-RPC wants -32602 (invalid params).
 */
const LIST_TOOLS = RequestSchema.extend({ method: ListToolsRequestSchema.shape.method });
const CALL_TOOL = RequestSchema.extend({ method: CallToolRequestSchema.shape.method });

/**
 * Builds the SDK's low-level MCP Server with the gateway's tool handlers. The low-level Server
 * (not McpServer) because the tool list is not fixed: it is the toolset of whichever tenant a
 * request names. Every Server shares one JSON Schema validator (the SDK would otherwise build
 * an ajv instance per Server).
 */
@Injectable()
export class McpServerFactory {
  private readonly validator = new AjvJsonSchemaValidator();
  private readonly info: { name: string; version: string };

  constructor(
    private readonly tools: McpToolsHandler,
    @Inject(MCP_MODULE_OPTIONS) options: McpModuleOptions,
  ) {
    this.info = { name: 'svc-gateway', version: options.version ?? '0.0.0' };
  }

  create(): Server {
    const server = new Server(this.info, {
      capabilities: { tools: { listChanged: false } },
      jsonSchemaValidator: this.validator,
    });
    server.setRequestHandler(LIST_TOOLS, (request, extra) => this.tools.list(request, extra));
    server.setRequestHandler(CALL_TOOL, (request, extra) => this.tools.call(request, extra));
    return server;
  }
}
