import { Controller, Get, HttpCode, Logger, Param, Post, Req, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import { AgentSpecStore } from '../agents/agent-spec.store.js';
import { CurrentPrincipal, RequirePermissions } from '../platform/auth/auth.decorators.js';
import type { AuthenticatedRequest, Principal } from '../platform/auth/principal.js';
import { wireTenant } from '../platform/auth/wire-tenant.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { ValidBody } from '../platform/http/validated-params.js';
import { AgentRunner } from '../runs/agent-runner.service.js';
import { type RunRequest, withRunId } from '../runs/run-request.js';
import { toModel, toCompletion } from './completion-shapes.js';
import { ChatCompletionDto } from './dto/chat-completion.dto.js';
import { CompletionStreams } from './completion-streams.js';
import { asModelError, completedOrProblem, modelNotFound, runHeaders } from './run-outcome.js';
import { wireRunRequest } from './wire-run-request.js';

/** The plain agent loop, which every tenant has (CONTRACT: `agent` default). */
const DEFAULT_AGENT = 'default';

/**
 * The OpenAI-compatible wire onto the same runs as `POST /v1/agent/run` (CONTRACT 10): `model`
 * names an agent, the gateway runs it (its tools run inside the gateway) and answers in the
 * Chat Completions shape, streamed as chunks with `stream: true`. `GET /v1/models` lists the
 * tenant's agents. Errors are OpenAI's error objects (OpenAiWireErrors). The tenant is the key's, else
 * `X-Tenant-Id`, else SVC_TENANT.
 */
@Controller('v1')
export class ChatCompletionsController {
  private readonly logger = new Logger(ChatCompletionsController.name);
  private readonly maxTurns: number;
  private readonly defaultTenant?: string;

  constructor(
    private readonly runner: AgentRunner,
    private readonly specs: AgentSpecStore,
    private readonly streams: CompletionStreams,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.maxTurns = config.get('provider', { infer: true }).maxTurns;
    this.defaultTenant = config.get('tenancy', { infer: true }).defaultTenant;
  }

  @RequirePermissions('runs:read')
  @Get('models')
  async models(@Req() req: Request & AuthenticatedRequest) {
    const tenantId = wireTenant(req, this.defaultTenant);
    const names = await this.specs.list(tenantId);
    const graphs = await Promise.all(names.map((name) => this.specs.get(tenantId, name)));
    return {
      object: 'list',
      data: [
        toModel(DEFAULT_AGENT, tenantId, 0),
        ...graphs.flatMap((spec) => (spec ? [toModel(spec.name, tenantId, spec.updatedAt)] : [])),
      ],
    };
  }

  @RequirePermissions('runs:read')
  @Get('models/:model')
  async model(@Param('model') name: string, @Req() req: Request & AuthenticatedRequest) {
    const tenantId = wireTenant(req, this.defaultTenant);
    if (name === DEFAULT_AGENT) return toModel(DEFAULT_AGENT, tenantId, 0);
    const spec = await this.specs.get(tenantId, name);
    if (!spec) throw modelNotFound(name);
    return toModel(spec.name, tenantId, spec.updatedAt);
  }

  /**
   * Runs the agent `model` names with the messages and answers a `chat.completion` once the
   * run completed, or, with `stream: true`, its chunks as the run goes (it goes on if the
   * client leaves). A run that fails answers the run's problem as an OpenAI error; one that
   * stops for an approval (a graph) or was cancelled or denied, 409 naming the run.
   */
  @RequirePermissions('runs:write')
  @Post('chat/completions')
  @HttpCode(200)
  async complete(
    @ValidBody() body: ChatCompletionDto,
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request & AuthenticatedRequest,
    @Res() res: Response,
  ): Promise<void> {
    const tenantId = wireTenant(req, this.defaultTenant);
    const request: RunRequest = wireRunRequest(body, req, {
      tenantId,
      actor: principal.keyId,
      maxTurns: this.maxTurns,
    });
    if (body.stream) {
      await this.streams.stream(
        withRunId(request),
        body.stream_options?.include_usage === true,
        res,
      );
      return;
    }
    const record = await this.runner.run(request).catch((error: unknown) => {
      throw asModelError(error, request.agent);
    });
    const finished = completedOrProblem(record);
    // 200, as OpenAI answers (not the 201 Nest gives a POST).
    res.status(200).set(runHeaders(finished)).json(toCompletion(finished));
  }
}
