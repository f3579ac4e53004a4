import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentPrincipal, RequirePermissions } from '../platform/auth/auth.decorators.js';
import type { Principal } from '../platform/auth/principal.js';
import { IdempotencyKey } from '../platform/http/idempotency-key.js';
import { ValidBody } from '../platform/http/validated-params.js';
import { CallToolDto } from './dto/call-tool.dto.js';
import { ToolExecutor } from './tool-executor.service.js';

/**
 * `POST /v1/tools/{toolset}/{name}`: one tool call, through the same executor the agent uses.
 * The client's own `Idempotency-Key` goes on to an HTTP tool as is; without one none is sent:
 * the gateway never repeats a direct call, so a key it made up would tell the endpoint nothing.
 */
@Controller('v1/tools')
export class ToolsController {
  constructor(private readonly executor: ToolExecutor) {}

  @Post(':toolset/:name')
  @HttpCode(200)
  @RequirePermissions('tools:call')
  async call(
    @Param('toolset') toolset: string,
    @Param('name') name: string,
    @ValidBody() body: CallToolDto,
    @CurrentPrincipal() principal: Principal,
    @IdempotencyKey() idempotencyKey: string | undefined,
  ) {
    const outcome = await this.executor.execute(
      { tenantId: body.tenant_id, toolset, name, arguments: body.arguments ?? {} },
      { actor: principal.keyId, permissions: principal.permissions, idempotencyKey },
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
