import {
  Controller,
  Get,
  HttpCode,
  Logger,
  Post,
  Req,
  Res,
  type Type,
  UseGuards,
  applyDecorators,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiBody, ApiOperation } from '../platform/openapi/api-decorators.js';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Public, RequirePermissions } from '../platform/auth/auth.decorators.js';
import { assertTenantAllowed } from '../platform/auth/auth.guard.js';
import type { AuthenticatedRequest, Principal } from '../platform/auth/principal.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { ProblemException, ValidationProblem } from '../platform/http/problem.js';
import { ValidQuery } from '../platform/http/validated-params.js';
import { createValidationPipe } from '../platform/http/validation.pipe.js';
import { StateUnavailableError } from '../platform/state/state-store.js';
import { STATE_RETRY_AFTER_S } from '../platform/state/state-unavailable.js';
import { ChannelRegistry } from './channel-registry.js';
import { GenericEventDto } from './dto/generic-event.dto.js';
import { OutboxQueryDto } from './dto/outbox-query.dto.js';
import { WebhookQueryDto } from './dto/webhook-query.dto.js';
import { InboundEventService, type WebhookAccepted } from './inbound-event.service.js';
import { type OutboxView, outboxView } from './outbox-entry.js';
import { OutboxStore } from './outbox.store.js';
import { type SlackWorkspace, isSlackPayload, mapSlackPayload } from './slack-event.mapper.js';
import { slackTenant, unmappedDetail } from './slack-tenant.js';
import { WebhookSignatureGuard } from './webhook-signature.guard.js';

type WebhookAnswer = WebhookAccepted | { challenge: string } | { ok: true; ignored: string };

/**
 * The messaging surface (CONTRACT section 7). A class per configuration, because who may post
 * to the webhook is route metadata: with SVC_MESSAGING_SECRET the route is public to the API-key
 * guard and checked by its signature instead; without, it needs a key with `messaging:write`.
 */
export function messagingController(signedWebhook: boolean): Type {
  const webhookAccess = signedWebhook
    ? applyDecorators(Public(), UseGuards(WebhookSignatureGuard))
    : RequirePermissions('messaging:write');

  @Controller('v1/messaging')
  class MessagingController {
    private readonly pipe = createValidationPipe();
    private readonly logger = new Logger('MessagingController');
    private readonly defaultTenant?: string;
    private readonly slackTenants?: ReadonlyMap<string, string>;

    constructor(
      private readonly inbound: InboundEventService,
      private readonly outbox: OutboxStore,
      private readonly channels: ChannelRegistry,
      config: ConfigService<GatewayConfig, true>,
    ) {
      this.defaultTenant = config.get('tenancy', { infer: true }).defaultTenant;
      this.slackTenants = config.get('messaging', { infer: true }).slackTenants;
    }

    /**
     * A generic event or a Slack Events API payload. Answers at once (the run goes on in the
     * background) unless `?wait=true`; a repeated event answers `duplicate: true`.
     */
    @webhookAccess
    @Post('webhook')
    @HttpCode(200)
    @ApiOperation({
      summary: 'A chat event or a Slack Events API payload',
      description: signedWebhook
        ? 'Checked by its Slack-style signature (`X-Slack-Signature: v0=<HMAC-SHA256 of v0:{timestamp}:{body}>`, `X-Slack-Request-Timestamp` within 5 minutes), not by an API key (SVC_MESSAGING_SECRET is set).'
        : 'With SVC_MESSAGING_SECRET set it is checked by a Slack-style signature instead of a key.',
    })
    @ApiBody({
      type: GenericEventDto,
      description:
        'A generic event, or a Slack Events API payload (`url_verification`, `event_callback`), which is mapped to one.',
    })
    async webhook(
      @Req() req: Request & AuthenticatedRequest,
      @ValidQuery() query: WebhookQueryDto,
    ): Promise<WebhookAnswer> {
      const body: unknown = req.body;
      let plain: unknown = body;
      if (isSlackPayload(body)) {
        const mapped = mapSlackPayload(body);
        if (mapped.kind === 'challenge') return { challenge: mapped.challenge };
        if (mapped.kind === 'ignored') return { ok: true, ignored: mapped.reason };
        const tenantId = this.slackTenantOf(mapped.workspace, query.tenant_id);
        plain = {
          tenant_id: tenantId,
          channel: 'chata',
          conversation_id: mapped.conversationId,
          user: mapped.user,
          text: mapped.text,
          event_id: mapped.eventId,
        };
      } else if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new ValidationProblem([{ path: '', message: 'the body must be a JSON object' }]);
      }
      const event = (await this.pipe.transform(plain, {
        type: 'body',
        metatype: GenericEventDto,
      })) as GenericEventDto;
      if (query.tenant_id !== undefined && query.tenant_id !== event.tenant_id) {
        throw new ValidationProblem([
          { path: 'tenant_id', message: 'tenant_id in the query and in the body differ' },
        ]);
      }
      if (req.principal) assertTenantAllowed(req.principal, [event.tenant_id]);
      return this.inbound.accept(
        {
          tenantId: event.tenant_id,
          channel: event.channel,
          conversationId: event.conversation_id,
          user: event.user,
          text: event.text,
          eventId: event.event_id,
        },
        { actor: req.principal?.keyId ?? `signed:${event.channel}`, wait: query.wait ?? false },
      );
    }

    /**
     * The tenant of a Slack event, from its signed workspace ids (slack-tenant.ts). A `?tenant_id=`
     * may only repeat it. An event for no tenant is 403: Slack retries a refusal three times
     * within the hour (so a workspace mapped meanwhile still gets its message) and then stops.
     */
    private slackTenantOf(workspace: SlackWorkspace, queryTenant: string | undefined): string {
      const tenantId = slackTenant(workspace, this.slackTenants, this.defaultTenant);
      if (tenantId === undefined) {
        const detail = unmappedDetail(workspace, this.slackTenants);
        this.logger.warn(`Slack event refused: ${detail}`);
        throw new ProblemException(403, detail, 'slack-workspace-not-mapped');
      }
      if (queryTenant !== undefined && queryTenant !== tenantId) {
        throw new ValidationProblem([
          {
            path: 'tenant_id',
            message: 'tenant_id in the query is not the tenant of this Slack workspace',
          },
        ]);
      }
      return tenantId;
    }

    /** Public like the probes: configured adapters and the outbox's backlog, no tenant data. */
    @Public()
    @Get('webhook/health')
    async health(@Res({ passthrough: true }) res: Response): Promise<Record<string, unknown>> {
      const configured = this.channels.configured();
      const base = {
        signature_required: signedWebhook,
        adapters: {
          chata: { configured: configured.chata },
          chatb: { configured: configured.chatb },
        },
      };
      try {
        const stats = await this.outbox.stats();
        return {
          status: 'ok',
          ...base,
          outbox: {
            pending: stats.pending,
            running: stats.running,
            failed: stats.failed,
            oldest_pending_age_ms: stats.oldestPendingAgeMs,
          },
        };
      } catch (error) {
        if (!(error instanceof StateUnavailableError)) throw error;
        res.status(503).setHeader('Retry-After', STATE_RETRY_AFTER_S);
        return { status: 'unavailable', ...base, outbox: null, reason: error.message };
      }
    }

    /** A tenant's outbox entries, newest first. */
    @RequirePermissions('messaging:read')
    @Get('outbox')
    async list(
      @ValidQuery() query: OutboxQueryDto,
      @CurrentPrincipal() principal: Principal,
    ): Promise<{ deliveries: OutboxView[] }> {
      assertTenantAllowed(principal, [query.tenant_id]);
      const entries = await this.outbox.list(query.tenant_id, query.status, query.limit ?? 50);
      return { deliveries: entries.map(outboxView) };
    }
  }
  return MessagingController;
}
