import { All, Controller, Get, NotFoundException, Param, Post, Req, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiBody, ApiOperation, ApiParam } from '../platform/openapi/api-decorators.js';
import type { Request, RequestHandler, Response } from 'express';
import type { AgentSkill } from '@a2a-js/sdk';
import { AgentSpecStore } from '../agents/agent-spec.store.js';
import { Public, RequirePermissions } from '../platform/auth/auth.decorators.js';
import type { AuthenticatedRequest } from '../platform/auth/principal.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { ProblemException } from '../platform/http/problem.js';
import { LazyModule, importInTurn } from '../platform/lazy/lazy-module.js';
import { a2aSdk } from '../tools/a2a/a2a-sdk.js';
import { JSON_RPC_MESSAGE } from '../platform/openapi/json-rpc.schema.js';
import { ToolCatalog } from '../tools/tool-catalog.service.js';
import { type A2ABinding, A2ATenantError, callerOf, nameAgent, tenantOf } from './a2a-caller.js';
import { keepGatewayStatuses } from './a2a-wire-errors.js';
import { type CardSubject, agentCard, toolSkill } from './agent-cards.js';
import { A2APushNotifications } from './push-notifications.js';
import { RunTasksHandler } from './run-tasks.handler.js';
import { DEFAULT_AGENT } from './task-records.js';

const AGENT_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * A2A v1.0 (CONTRACT 10): the gateway's card at `/.well-known/agent-card.json`, a card per
 * tenant and agent at `/a2a/{agent}/.well-known/agent-card.json`, the JSON-RPC binding at
 * `/a2a/{agent}` and the HTTP+JSON one at `/a2a/{agent}/rest`, served by the SDK's transports
 * over RunTasksHandler (tasks are runs). A request without `A2A-Version` (or with 0.3) is v0.3,
 * as the protocol says: the SDK's compatibility layer answers it on both bindings and the cards
 * (a v0.3 card with `url`, `protocolVersion`, `preferredTransport`, and the v1.0 interfaces).
 * The SDK's server transports are imported with the first A2A call (routers), the card's v0.3
 * router with the first card.
 */
@Controller()
export class A2AController {
  private routers?: Promise<{ rpc: RequestHandler; rest: RequestHandler }>;
  private readonly defaultTenant?: string;

  constructor(
    private readonly handler: RunTasksHandler,
    private readonly push: A2APushNotifications,
    private readonly specs: AgentSpecStore,
    private readonly catalog: ToolCatalog,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.defaultTenant = config.get('tenancy', { infer: true }).defaultTenant;
  }

  /** The SDK's JSON-RPC and HTTP+JSON routers over RunTasksHandler, made on first use. */
  private binding(name: A2ABinding): Promise<RequestHandler> {
    this.routers ??= importInTurn(() => import('@a2a-js/sdk/server/express')).then(
      ({ jsonRpcHandler, restHandler }) => {
        const userBuilder = (binding: A2ABinding) => (req: Request) =>
          Promise.resolve(callerOf(req, binding));
        return {
          rpc: jsonRpcHandler({
            requestHandler: this.handler,
            userBuilder: userBuilder('jsonrpc'),
            legacyCompat: { enabled: true },
          }),
          rest: restHandler({
            requestHandler: this.handler,
            userBuilder: userBuilder('rest'),
            legacyCompat: { enabled: true },
          }),
        };
      },
    );
    return this.routers.then((routers) => (name === 'jsonrpc' ? routers.rpc : routers.rest));
  }

  /** The gateway's own card: where its agents are, without naming a tenant or a tool. */
  @Public()
  @Get('.well-known/agent-card.json')
  @ApiOperation({
    summary: "A2A: the gateway's agent card (names no tenant or tool)",
    description: 'The v1.0 card with `A2A-Version: 1.0`; without it the v0.3 card.',
  })
  gatewayCard(@Req() req: Request, @Res() res: Response): Promise<void> {
    return sendCard(req, res, {
      baseUrl: baseUrlOf(req),
      agent: DEFAULT_AGENT,
      tenantId: '',
      description:
        'svc-gateway: tool-using agents for many tenants. Each tenant agent has its own card at /a2a/{agent}/.well-known/agent-card.json (an API key is needed).',
      skills: [],
      pushNotifications: this.push.enabled,
    });
  }

  /** A tenant's agent: its description, and a skill per tool (or graph step) it may use. */
  @RequirePermissions('runs:read')
  @Get('a2a/:agent/.well-known/agent-card.json')
  @ApiOperation({
    summary: "A2A: a tenant agent's card",
    description:
      'Its skills are the tools (or graph steps) the agent may use. `?tenant=` for an unbound key. The v1.0 card with `A2A-Version: 1.0`; without it the v0.3 card.',
  })
  async card(
    @Param('agent') agent: string,
    @Req() req: Request & AuthenticatedRequest,
    @Res() res: Response,
  ): Promise<void> {
    const tenantId = this.tenant(req, agent);
    const { description, skills } = await this.describe(tenantId, agent, callerOf(req).toolset);
    await sendCard(req, res, {
      baseUrl: baseUrlOf(req),
      agent,
      tenantId,
      description,
      skills,
      pushNotifications: this.push.enabled,
    });
  }

  @RequirePermissions('runs:write')
  @Post('a2a/:agent')
  @ApiOperation({
    summary: 'A2A JSON-RPC binding',
    description:
      'A2A v1.0 (`A2A-Version: 1.0`; without it v0.3): `SendMessage`, `SendStreamingMessage`, `GetTask`, `CancelTask`, … Tasks are runs of the agent. Answers JSON-RPC, or `text/event-stream` for streaming methods.',
  })
  @ApiBody({ schema: JSON_RPC_MESSAGE })
  rpcCall(
    @Param('agent') agent: string,
    @Req() req: Request & AuthenticatedRequest,
    @Res() res: Response,
  ): Promise<void> {
    return this.delegate('jsonrpc', agent, '/', req, res);
  }

  /** The HTTP+JSON binding: `/a2a/{agent}/rest/{tenant}/message:send`, `…/tasks/{id}`, … */
  @RequirePermissions('runs:write')
  @All('a2a/:agent/rest/{*path}')
  @ApiOperation({
    summary: 'A2A HTTP+JSON binding',
    description:
      "The A2A HTTP+JSON binding under this prefix. v1.0 (`A2A-Version: 1.0`): `POST …/{tenant}/message:send`, `POST …/{tenant}/message:stream`, `GET …/{tenant}/tasks`, `GET …/{tenant}/tasks/{id}`, `POST …/{tenant}/tasks/{id}:cancel`, `…:subscribe`, push notification configs (the tenant segment may be left out). v0.3 (no `A2A-Version`): `POST …/v1/message:send`, `GET …/v1/tasks/{id}`, …. Bodies and answers are the protocol's.",
  })
  @ApiParam({
    name: 'path',
    description: 'The rest of the path (it may span segments), e.g. `v1/message:send`.',
  })
  restCall(
    @Param('agent') agent: string,
    @Req() req: Request & AuthenticatedRequest,
    @Res() res: Response,
  ): Promise<void> {
    const prefix = `/a2a/${encodeURIComponent(agent)}/rest`;
    const rest = req.originalUrl.startsWith(prefix) ? req.originalUrl.slice(prefix.length) : '/';
    return this.delegate('rest', agent, rest || '/', req, res);
  }

  /**
   * Hands the request to one of the SDK's routers, at the path it serves. Express 5's
   * `req.query` is a getter that drops assignments, and the SDK's HTTP+JSON router passes the
   * path's `/{tenant}` on by assigning `req.query.tenant`: the query becomes a plain property
   * first, so the tenant arrives.
   */
  private async delegate(
    binding: A2ABinding,
    agent: string,
    path: string,
    req: Request & AuthenticatedRequest,
    res: Response,
  ): Promise<void> {
    if (!AGENT_NAME.test(agent)) throw new NotFoundException(`no agent ${JSON.stringify(agent)}`);
    const router = await this.binding(binding);
    nameAgent(req, agent);
    Object.defineProperty(req, 'query', {
      value: { ...req.query },
      writable: true,
      enumerable: true,
      configurable: true,
    });
    keepGatewayStatuses(req, res, binding);
    return new Promise<void>((resolve, reject) => {
      const url = req.url;
      req.url = path;
      res.once('close', () => resolve());
      router(req, res, (error?: unknown) => {
        req.url = url;
        if (error) reject(error instanceof Error ? error : new Error('the A2A transport failed'));
        else reject(new NotFoundException(`A2A has no ${req.method} ${path}`));
      });
    });
  }

  private tenant(req: Request & AuthenticatedRequest, agent: string): string {
    const query = req.query.tenant;
    try {
      return tenantOf(
        callerOf(req),
        typeof query === 'string' ? query : undefined,
        this.defaultTenant,
      );
    } catch (error) {
      if (!(error instanceof A2ATenantError)) throw error;
      throw new ProblemException(error.forbidden ? 403 : 400, `${error.message} (agent ${agent})`);
    }
  }

  private async describe(
    tenantId: string,
    agent: string,
    toolset: string,
  ): Promise<{ description: string; skills: AgentSkill[] }> {
    if (agent === DEFAULT_AGENT) {
      const { tools } = await this.catalog.view(tenantId, toolset);
      return {
        description: "The tenant's default agent: a model with the tools of its default toolset.",
        skills: tools.map(toolSkill),
      };
    }
    const stored = await this.specs.get(tenantId, agent);
    if (!stored)
      throw new ProblemException(404, `no agent ${JSON.stringify(agent)}`, 'agent-not-found');
    const { spec } = stored;
    return {
      description: spec.description ?? `A ${spec.topology} graph of ${spec.steps.length} steps.`,
      skills: spec.steps.map((step) =>
        toolSkill({
          name: step.id,
          description: step.kind === 'tool' ? `calls the tool ${step.tool ?? ''}` : 'an agent step',
        }),
      ),
    };
  }
}

/** The SDK's v0.3 card router, imported with the first card asked for. */
const legacyCards = new LazyModule(
  '@a2a-js/sdk/compat/v0_3/server/express',
  () => import('@a2a-js/sdk/compat/v0_3/server/express'),
);

/**
 * Answers a card: to a v0.3 request (`A2A-Version` absent or 0.x) the SDK's v0.3 card, which
 * also carries the v1.0 interfaces; to a v1.0 one the card in the protocol's JSON (ProtoJSON:
 * `oneof` members by name), as every client reads it. Cards are per key: never cached shared.
 */
async function sendCard(req: Request, res: Response, subject: CardSubject): Promise<void> {
  const { legacyAgentCardRouter } = await legacyCards.load();
  const { AgentCard } = await a2aSdk.load();
  const card = agentCard(subject);
  const legacy = legacyAgentCardRouter({
    agentCardProvider: () => Promise.resolve(card),
    cache: { maxAge: 0 },
  });
  return new Promise<void>((resolve, reject) => {
    const url = req.url;
    req.url = '/';
    legacy(req, res, (error?: unknown) => {
      req.url = url;
      if (error && error !== 'router') {
        reject(error instanceof Error ? error : new Error('the A2A card failed'));
        return;
      }
      res.set({ 'Cache-Control': 'no-cache', Vary: 'A2A-Version' }).json(AgentCard.toJSON(card));
      resolve();
    });
    res.once('finish', () => resolve());
  });
}

function baseUrlOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
