import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentPrincipal, RequirePermissions } from '../platform/auth/auth.decorators.js';
import type { Principal } from '../platform/auth/principal.js';
import { CallToolDto } from './dto/call-tool.dto.js';
import { ToolExecutor } from './tool-executor.service.js';

/** `POST /v1/tools/{toolset}/{name}`: one tool call, through the same executor the agent uses. */
@Controller('v1/tools')
export class ToolsController {
  constructor(private readonly executor: ToolExecutor) {}

  @Post(':toolset/:name')
  @HttpCode(200)
  @RequirePermissions('tools:call')
  async call(
    @Param('toolset') toolset: string,
    @Param('name') name: string,
    @Body() body: CallToolDto,
    @CurrentPrincipal() principal: Principal,
  ) {
    const outcome = await this.executor.execute(
      { tenantId: body.tenant_id, toolset, name, arguments: body.arguments ?? {} },
      { actor: principal.keyId, permissions: principal.permissions },
    );
    return {
      tool: outcome.tool,
      toolset: outcome.toolset,
      version: outcome.version,
      result: outcome.result,
      is_error: outcome.isError,
    };
  }
}
