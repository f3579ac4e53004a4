import { Controller, Delete, Get, Post, Req, Res, type Type, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public, RequirePermissions } from '../platform/auth/auth.decorators.js';
import type { AuthenticatedRequest } from '../platform/auth/principal.js';
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
    health(): { status: 'ok' } {
      return { status: 'ok' };
    }

    @RequirePermissions('tools:call')
    @Post()
    post(@Req() req: Request & AuthenticatedRequest, @Res() res: Response): Promise<void> {
      return this.host.post(req, res);
    }

    @RequirePermissions('tools:call')
    @Get()
    get(@Req() req: Request & AuthenticatedRequest, @Res() res: Response): Promise<void> {
      return this.host.get(req, res);
    }

    @RequirePermissions('tools:call')
    @Delete()
    delete(@Req() req: Request & AuthenticatedRequest, @Res() res: Response): Promise<void> {
      return this.host.delete(req, res);
    }
  }
  return McpController;
}
