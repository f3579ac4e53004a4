import type { ServerResponse } from 'node:http';
import { type BeforeApplicationShutdown, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type McpHttpHandler, createMcpHandler } from '@modelcontextprotocol/server';
import { type NodeMcpRequestHandler, toNodeHandler } from '@modelcontextprotocol/node';
import type { CatalogChanges } from '../../catalog/catalog-changes.js';
import type { ToolsetChanges } from '../../tools/toolset-changes.js';
import { JsonRpcCode, sendJsonRpcError } from '../json-rpc-error.js';
import type { McpHttpRequest } from '../legacy/legacy-transports.js';
import type { McpServerFactory } from '../mcp-server.factory.js';
import { type ListenScope, listenScope } from './listen-scope.js';
import { TenantChangeBus } from './tenant-change.bus.js';

export interface ModernEndpointOptions {
  /** SSE comment keepalives on every stream this endpoint serves. */
  keepAliveMs: number;
  /** Open `subscriptions/listen` streams on this replica. */
  maxSubscriptions: number;
}

/**
 * The 2026-07-28 revision on the SDK's own serving entry (`createMcpHandler`, strict: legacy
 * traffic never reaches it): every request stands alone, with the revision and the client's
 * capabilities in its `_meta`, answered by a fresh Server, so any replica answers any request
 * and no session lives anywhere. `subscriptions/listen` streams hear their toolset's changes
 * from every replica (ToolsetChanges), through a bus partitioned by tenant and toolset.
 */
const isListen = (body: unknown) =>
  body !== null &&
  typeof body === 'object' &&
  (body as { method?: unknown }).method === 'subscriptions/listen';

export class ModernEndpoint implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('McpHost');
  private readonly bus = new TenantChangeBus();
  private readonly handler: McpHttpHandler;
  private readonly node: NodeMcpRequestHandler;
  private readonly unsubscribe: Array<() => void>;
  /** Open listen streams, ended at shutdown (they would hold the draining server open). */
  private readonly streams = new Set<ServerResponse>();
  private draining = false;

  constructor(
    servers: McpServerFactory,
    changes: { toolsets: ToolsetChanges; catalog: CatalogChanges },
    options: ModernEndpointOptions,
  ) {
    const onerror = (error: Error) => this.logger.debug({ err: error }, 'MCP request refused');
    this.handler = createMcpHandler(() => servers.create(), {
      legacy: 'reject',
      bus: this.bus,
      keepAliveMs: options.keepAliveMs,
      maxSubscriptions: options.maxSubscriptions,
      onerror,
    });
    this.node = toNodeHandler(this.handler, { onerror });
    this.unsubscribe = [
      changes.toolsets.subscribe((change) =>
        this.bus.publishFor(change, { kind: 'tools_list_changed' }),
      ),
      changes.catalog.subscribe(({ tenantId, kind, uri }) => {
        if (kind === 'prompts')
          return this.bus.publishFor({ tenantId }, { kind: 'prompts_list_changed' });
        this.bus.publishFor({ tenantId }, { kind: 'resources_list_changed' });
        if (uri !== undefined) this.bus.publishFor({ tenantId }, { kind: 'resource_updated', uri });
      }),
    ];
  }

  /** Open `subscriptions/listen` streams on this replica. */
  get listeners(): number {
    return this.bus.size;
  }

  serve(req: McpHttpRequest, res: ServerResponse, body: unknown, scope: ListenScope) {
    if (isListen(body)) {
      if (this.draining) {
        sendJsonRpcError(res, {
          status: 503,
          code: JsonRpcCode.Transport,
          message: 'Service Unavailable: the gateway is shutting down',
          headers: { connection: 'close' },
        });
        return Promise.resolve();
      }
      this.streams.add(res);
      res.once('close', () => this.streams.delete(res));
    }
    return listenScope.run(scope, () => this.node(req, res, body));
  }

  /** A client whose listen stream ends reopens it on a replica that is not stopping. */
  beforeApplicationShutdown(): void {
    this.draining = true;
    for (const res of this.streams) res.destroy();
  }

  async onApplicationShutdown(): Promise<void> {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    await this.handler.close();
  }
}
