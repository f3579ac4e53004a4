import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { DestinationStream } from 'pino';
import { AgentModule } from '../runs/agent.module.js';
import { AgentsModule } from '../agents/agents.module.js';
import { ApprovalModule } from '../runs/approval/approval.module.js';
import { AuditModule } from '../platform/audit/audit.module.js';
import { AuthModule } from '../platform/auth/auth.module.js';
import { BoardModule } from '../board/board.module.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { GatewayConfigModule } from '../platform/config/gateway-config.module.js';
import { HealthModule } from '../platform/health/health.module.js';
import type { EgressLookup } from '../platform/http/egress-agent.js';
import { EgressModule } from '../platform/http/egress.module.js';
import { ProblemFilter } from '../platform/http/problem.filter.js';
import { RequestEntryModule } from '../platform/http/request-entry.module.js';
import { WireErrorsModule } from '../platform/http/wire-errors.js';
import { ServingModule } from '../platform/http/serving.module.js';
import { configSecrets } from '../platform/logging/config-secrets.js';
import { LoggingModule } from '../platform/logging/logging.module.js';
import { RateLimitModule } from '../platform/rate-limit/rate-limit.module.js';
import { StateModule } from '../platform/state/state.module.js';
import { TelemetryModule } from '../platform/telemetry/telemetry.module.js';
import { ProvidersModule } from '../providers/providers.module.js';
import { ToolsModule } from '../tools/tools.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { StudioModule } from '../studio/studio.module.js';
import { MCP_PATH } from '../mcp/mcp.options.js';
import { McpModule } from '../mcp/mcp.module.js';
import { MessagingModule } from '../messaging/messaging.module.js';
import { OpenApiModule } from '../platform/openapi/openapi.module.js';
import { PACKAGE } from '../platform/config/package-info.js';
import { SURFACES } from './surfaces.js';
import { OpenAiWireModule } from '../openai/openai.module.js';
import { A2AModule } from '../a2a/a2a.module.js';

export interface AppOptions {
  /** Where JSON logs go (stdout by default); tests pass a stream to inspect them. */
  logDestination?: DestinationStream;
  /** Where the MCP host is mounted (default `/mcp`); a standalone host can choose its path. */
  mcpPath?: string;
  /** Resolves tenants' destination names (the system resolver by default; tests map names). */
  egressLookup?: EgressLookup;
}

/**
 * The composed gateway. Global behaviour lives here as APP_* providers so a test app built from
 * this module behaves exactly like production: the problem filter, the validation pipe, and the
 * guards (AuthModule's before RateLimitModule's: a bad key is a 401 before it spends any budget).
 */
@Module({})
export class AppModule {
  static async forRoot(config: GatewayConfig, options: AppOptions = {}): Promise<DynamicModule> {
    const mcpPath = options.mcpPath ?? MCP_PATH;
    return {
      module: AppModule,
      imports: [
        await GatewayConfigModule.forRoot(config),
        TelemetryModule.forRoot(config.telemetry),
        LoggingModule.forRoot(config.server, options.logDestination, configSecrets(config)),
        RequestEntryModule,
        EgressModule.forRoot(options.egressLookup),
        ServingModule,
        WireErrorsModule,
        AuditModule,
        AuthModule,
        RateLimitModule,
        StateModule,
        HealthModule.forRoot(SURFACES),
        ProvidersModule,
        ToolsModule,
        RunsModule,
        SessionsModule,
        AgentsModule,
        AgentModule,
        ApprovalModule,
        BoardModule,
        StudioModule,
        McpModule.forRoot({ path: mcpPath, version: PACKAGE.version }),
        OpenAiWireModule,
        A2AModule,
        MessagingModule.forRoot(config.messaging),
        OpenApiModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: ProblemFilter }],
    };
  }
}
