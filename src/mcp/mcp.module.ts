import {
  type DynamicModule,
  Inject,
  type MiddlewareConsumer,
  Module,
  type NestModule,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { type GatewayConfig, authDisabled } from '../platform/config/gateway-config.js';
import { BoardModule } from '../board/board.module.js';
import { CatalogModule } from '../catalog/catalog.module.js';
import { StateModule } from '../platform/state/state.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { ToolsModule } from '../tools/tools.module.js';
import { mcpController } from './mcp.controller.js';
import {
  MCP_MODULE_OPTIONS,
  type McpModuleOptions,
  mcpRoutes,
  normalizeMountPath,
} from './mcp.options.js';
import { McpOriginMiddleware } from './mcp-origin.middleware.js';
import { McpHttpHost } from './mcp-http.host.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { McpToolsHandler } from './mcp-tools.handler.js';
import { BuiltInResources } from './features/built-in-resources.js';
import { McpCatalogHandler } from './features/mcp-catalog.handler.js';
import { UpstreamFeatures } from './features/upstream-features.js';
import { LegacyTransports } from './legacy/legacy-transports.js';
import { StatefulTransports } from './legacy/stateful.transports.js';
import { StatelessTransports } from './legacy/stateless.transports.js';
import { ModernEndpoint } from './modern/modern-endpoint.js';
import { ChangeNotices } from './changes/change-notices.js';
import { DocumentUpdates } from './changes/document-updates.js';
import { McpChanges } from './changes/mcp-changes.js';
import { UpstreamListRelay } from './changes/upstream-list-relay.js';
import { SSE_RETRY_MS } from './sse-priming.js';
import { StatelessCancellations } from './stateless-cancellations.js';

/**
 * The MCP host (CONTRACT 6): tenants' toolsets over MCP's Streamable HTTP transport, built on
 * the official SDK v2 (@modelcontextprotocol/server, /node): the 2026-07-28 revision stateless
 * (modern/) and 2025-11-25 back to 2024-11-05 with sessions or without (legacy/), per request. Mountable at any path; the gateway mounts it at `/mcp`. Its
 * routes must not pass through a JSON body parser (see `underMcpMount`).
 */
@Module({})
export class McpModule implements NestModule {
  constructor(@Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(McpOriginMiddleware).forRoutes(...mcpRoutes(this.options.path));
  }

  static forRoot(options: McpModuleOptions): DynamicModule {
    const path = normalizeMountPath(options.path);
    return {
      module: McpModule,
      imports: [ToolsModule, StateModule, CatalogModule, BoardModule, RunsModule],
      controllers: [mcpController(path)],
      providers: [
        { provide: MCP_MODULE_OPTIONS, useValue: { ...options, path } },
        McpToolsHandler,
        McpCatalogHandler,
        BuiltInResources,
        UpstreamFeatures,
        McpServerFactory,
        StatelessCancellations,
        ChangeNotices,
        McpChanges,
        DocumentUpdates,
        UpstreamListRelay,
        {
          provide: LegacyTransports,
          inject: [ConfigService, McpServerFactory],
          useFactory: (config: ConfigService<GatewayConfig, true>, servers: McpServerFactory) => {
            const mcp = config.get('mcp', { infer: true });
            // With auth off every caller is the same `anonymous` key: a key quota would be a
            // second replica limit, so only the tenant quota applies.
            const keyQuota = authDisabled(config.get('auth', { infer: true }))
              ? Infinity
              : mcp.maxSessionsPerKey;
            const streams = {
              keepAliveMs: config.get('runEvents', { infer: true }).heartbeatMs,
              retryMs: SSE_RETRY_MS,
            };
            return mcp.mode === 'stateless'
              ? new StatelessTransports(servers, streams)
              : new StatefulTransports(servers, { ...mcp, maxSessionsPerKey: keyQuota }, streams);
          },
        },
        {
          provide: ModernEndpoint,
          inject: [ConfigService, McpServerFactory, McpChanges],
          useFactory: (
            config: ConfigService<GatewayConfig, true>,
            servers: McpServerFactory,
            changes: McpChanges,
          ) =>
            new ModernEndpoint(servers, changes, {
              keepAliveMs: config.get('runEvents', { infer: true }).heartbeatMs,
              maxSubscriptions: config.get('mcp', { infer: true }).maxSubscriptions,
              retryMs: SSE_RETRY_MS,
            }),
        },
        McpHttpHost,
      ],
    };
  }
}
