import { Controller, Delete, Get, Post, Req, Res, type Type, UseFilters } from '@nestjs/common';
import { ApiBody, ApiOperation } from '../platform/openapi/api-decorators.js';
import type { Request, Response } from 'express';
import { Public, RequirePermissions } from '../platform/auth/auth.decorators.js';
import type { AuthenticatedRequest } from '../platform/auth/principal.js';
import { JSON_RPC_MESSAGE } from '../platform/openapi/json-rpc.schema.js';
import { McpHttpHost } from './mcp-http.host.js';
import { McpProblemFilter } from './mcp-problem.filter.js';

/**
 * The routes of an MCP host mounted at `path` (a class per mount, since the path is part of
 * the class's metadata): POST/GET/DELETE `path` (a trailing slash matches too) and the public
 * `GET path/health`. Listing and calling tools both need `tools:call`. Every refusal on these
 * routes is a JSON-RPC error body (McpProblemFilter), whoever raised it.
 */
export function mcpController(path: string): Type {
  @UseFilters(McpProblemFilter)
  @Controller(path)
  class McpController {
    constructor(private readonly host: McpHttpHost) {}

    @Public()
    @Get('health')
    @ApiOperation({ summary: 'Health of the MCP host' })
    health(): { status: 'ok' } {
      return { status: 'ok' };
    }

    @RequirePermissions('tools:call')
    @Post()
    @ApiOperation({
      summary: 'MCP Streamable HTTP: a JSON-RPC message',
      description:
        "The tenant's toolset over the Model Context Protocol (revisions 2024-11-05 to 2025-11-25 with sessions, 2026-07-28 stateless): `initialize`, `tools/list`, `tools/call`, `ping`, prompts, resources. Answers JSON or `text/event-stream`; notifications answer 202. The tenant is the key's, else `X-Tenant-Id` or `?tenant_id=`; the toolset `X-Toolset` or `?toolset=`.",
    })
    @ApiBody({ schema: JSON_RPC_MESSAGE })
    post(@Req() req: Request & AuthenticatedRequest, @Res() res: Response): Promise<void> {
      return this.host.post(req, res);
    }

    @RequirePermissions('tools:call')
    @Get()
    @ApiOperation({
      summary: "MCP Streamable HTTP: a session's server-to-client stream",
      description:
        '`text/event-stream` of a session (`Mcp-Session-Id`), resumable with `Last-Event-ID`.',
    })
    get(@Req() req: Request & AuthenticatedRequest, @Res() res: Response): Promise<void> {
      return this.host.get(req, res);
    }

    @RequirePermissions('tools:call')
    @Delete()
    @ApiOperation({ summary: 'MCP Streamable HTTP: end a session (`Mcp-Session-Id`)' })
    delete(@Req() req: Request & AuthenticatedRequest, @Res() res: Response): Promise<void> {
      return this.host.delete(req, res);
    }
  }
  return McpController;
}
