import { Body, Controller, HttpCode, HttpStatus, Logger, Post, Res } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { ConfigService } from '@nestjs/config';
import { CurrentPrincipal, RequirePermissions } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import type { RunRecord } from '../record/run-record.js';
import { AgentRunner } from '../agent-runner.service.js';
import { RunAgentDto } from '../dto/run-agent.dto.js';
import { toRunRequest } from '../run-request.js';
import { startDetached } from './detached-run.js';

/** Where a run is read: GET /v1/runs/{id} needs its tenant. */
export function runLocation(run: Pick<RunRecord, 'run_id' | 'tenant_id'>): string {
  return `/v1/runs/${encodeURIComponent(run.run_id)}?tenant_id=${encodeURIComponent(run.tenant_id)}`;
}

@Controller('v1/agent')
export class AgentController {
  private readonly logger = new Logger(AgentController.name);
  private readonly maxTurns: number;

  constructor(
    private readonly runner: AgentRunner,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.maxTurns = config.get('provider', { infer: true }).maxTurns;
  }

  /**
   * Runs the agent to the end and answers with the run (CONTRACT section 5); 202 when a graph
   * run stopped at a node that waits for approval. `background: true` answers 202 with
   * `Location` as soon as the run is recorded.
   */
  @RequirePermissions('runs:write')
  @Post('run')
  @HttpCode(200)
  async run(
    @Body() body: RunAgentDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RunRecord> {
    const request = toRunRequest(body, { maxTurns: this.maxTurns }, principal.keyId);
    if (body.background) {
      const started = await startDetached(
        this.runner,
        { ...request, runId: request.runId ?? randomUUID() },
        this.logger,
      );
      const { record } = started;
      response.location(runLocation(record));
      if (!started.ended || record.status === 'paused') response.status(HttpStatus.ACCEPTED);
      return record;
    }
    const record = await this.runner.run(request);
    if (record.status === 'paused') response.status(HttpStatus.ACCEPTED);
    return record;
  }
}
