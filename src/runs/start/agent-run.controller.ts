import { Controller, HttpStatus, Logger, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ConfigService } from '@nestjs/config';
import { ApiOperation } from '../../platform/openapi/api-decorators.js';
import { CurrentPrincipal, RequirePermissions } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { ResponseSchema } from '../../platform/openapi/response-schema.js';
import { acceptsEventStream } from '../../platform/http/event-stream.js';
import { ValidBody } from '../../platform/http/validated-params.js';
import type { RunRecord } from '../record/run-record.js';
import { RUN_RECORD_SCHEMA } from '../record/run-record.schema.js';
import { AgentRunner } from '../agent-runner.service.js';
import { RunAgentDto } from '../dto/run-agent.dto.js';
import { RunStreams } from '../events/run-streams.js';
import { toRunRequest, withRunId } from '../run-request.js';
import { RunWebhooks } from '../webhooks/run-webhooks.service.js';
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
    private readonly streams: RunStreams,
    private readonly webhooks: RunWebhooks,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.maxTurns = config.get('provider', { infer: true }).maxTurns;
  }

  /**
   * Runs the agent (CONTRACT section 5) and answers one of three ways: with the run once it
   * ends (202 when a graph run stopped at a node that waits for approval); with `stream: true`
   * or `Accept: text/event-stream`, with the run's events as they happen; with `background:
   * true`, 202 and `Location` as soon as the run is recorded. Streamed and background runs go
   * on when the client leaves. Anything that stops a run from starting is a problem response.
   */
  @RequirePermissions('runs:write')
  @Post('run')
  @ApiOperation({
    summary: 'Run an agent',
    description:
      'Answers the run once it ends (202 when a graph run paused for an approval); with `stream: true` or `Accept: text/event-stream`, its events as `text/event-stream`; with `background: true`, 202 and `Location` once the run is recorded.',
  })
  @ResponseSchema(RUN_RECORD_SCHEMA, 200, 202)
  async run(
    @ValidBody() body: RunAgentDto,
    @CurrentPrincipal() principal: Principal,
    @Req() httpRequest: Request,
    @Res() response: Response,
  ): Promise<void> {
    const request = toRunRequest(body, { maxTurns: this.maxTurns }, principal.keyId);
    if (body.webhook !== undefined) this.webhooks.check(body.webhook);
    const streamed = body.stream ?? acceptsEventStream(httpRequest);
    if (streamed || body.background) {
      const identified = withRunId(request);
      const { runId } = identified;
      const started = await startDetached(
        this.runner,
        { ...identified, deltas: true },
        this.logger,
      );
      const location = runLocation(started.record);
      if (streamed) {
        // The whole log from its start: a repeated run id streams what its run did.
        await this.streams.stream(request.tenantId, runId, 0, response, { Location: location });
        return;
      }
      const waiting = !started.ended || started.record.status === 'paused';
      response
        .status(waiting ? HttpStatus.ACCEPTED : HttpStatus.OK)
        .location(location)
        .json(started.record);
      return;
    }
    const record = await this.runner.run(request);
    response.status(record.status === 'paused' ? HttpStatus.ACCEPTED : HttpStatus.OK).json(record);
  }
}
