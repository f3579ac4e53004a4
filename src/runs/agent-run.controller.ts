import { Body, Controller, HttpCode, HttpStatus, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ConfigService } from '@nestjs/config';
import { CurrentPrincipal, RequirePermissions } from '../platform/auth/auth.decorators.js';
import type { Principal } from '../platform/auth/principal.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import type { RunRecord } from './record/run-record.js';
import { AgentRunner } from './agent-runner.service.js';
import { RunAgentDto } from './dto/run-agent.dto.js';
import { toRunRequest } from './run-request.js';

@Controller('v1/agent')
export class AgentController {
  private readonly maxTurns: number;

  constructor(
    private readonly runner: AgentRunner,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.maxTurns = config.get('provider', { infer: true }).maxTurns;
  }

  /**
   * Runs the agent to the end and answers with the run (CONTRACT section 5); 202 when a graph
   * run stopped at a node that waits for approval.
   */
  @RequirePermissions('runs:write')
  @Post('run')
  @HttpCode(200)
  async run(
    @Body() body: RunAgentDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RunRecord> {
    const record = await this.runner.run(
      toRunRequest(body, { maxTurns: this.maxTurns }, principal.keyId),
    );
    if (record.status === 'paused') response.status(HttpStatus.ACCEPTED);
    return record;
  }
}
