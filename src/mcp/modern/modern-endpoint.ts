import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type BeforeApplicationShutdown, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import { mcpNodeSdk, mcpServerSdk } from '../../tools/mcp-sdk.js';
import { type ChangeScope, listenScope } from '../changes/change-scope.js';
import type { McpChanges } from '../changes/mcp-changes.js';
import { JsonRpcCode, sendJsonRpcError } from '../json-rpc-error.js';
import type { McpHttpRequest } from '../legacy/legacy-transports.js';
import type { McpServerFactory } from '../mcp-server.factory.js';
import { primedResponse, primingFrame } from '../sse-priming.js';
import { TenantChangeBus } from './tenant-change.bus.js';

export interface ModernEndpointOptions {
  /** SSE comment keepalives on every stream this endpoint serves. */
  keepAliveMs: number;
  /** Open `subscriptions/listen` streams on this replica. */
  maxSubscriptions: number;
  /** The `retry` of every stream's priming event. */
  retryMs: number;
}

const isListen = (body: unknown) =>
  body !== null &&
  typeof body === 'object' &&
  (body as { method?: unknown }).method === 'subscriptions/listen';

/**
 * The 2026-07-28 revision on the SDK's own serving entry (`createMcpHandler`, strict: legacy
 * traffic never reaches it): every request stands alone, with the revision and the client's
 * capabilities in its `_meta`, answered by a fresh Server, so any replica answers any request
 * and no session lives anywhere. `subscriptions/listen` streams hear their tenant's (and
 * toolset's) changes from every replica (McpChanges). Every SSE answer, a tool call's or a
 * listen stream, opens with a priming event: its id names the stream, which this revision
 * cannot resume (it has no `Last-Event-ID`), so the id is a label and `retry` says when to
 * listen again. The SDK's handler is built on the first request (McpHttpHost has loaded the SDK
 * by then).
 */
export class ModernEndpoint implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('McpHost');
  private built?: { handler: McpHttpHandler; node: NodeMcpRequestHandler };
  /** Open listen streams, ended at shutdown (they would hold the draining server open). */
  private readonly streams = new Set<ServerResponse>();
  private draining = false;

  constructor(
    private readonly servers: McpServerFactory,
    private readonly changes: McpChanges,
    private readonly options: ModernEndpointOptions,
  ) {}

  private get node(): NodeMcpRequestHandler {
    this.built ??= this.build();
    return this.built.node;
  }

  private build(): { handler: McpHttpHandler; node: NodeMcpRequestHandler } {
    const { servers, changes, options } = this;
    const { createMcpHandler } = mcpServerSdk.get();
    const { toNodeHandler } = mcpNodeSdk.get();
    const onerror = (error: Error) => this.logger.debug({ err: error }, 'MCP request refused');
    const handler = createMcpHandler(() => servers.create('modern'), {
      legacy: 'reject',
      bus: new TenantChangeBus(changes),
      keepAliveMs: options.keepAliveMs,
      maxSubscriptions: options.maxSubscriptions,
      onerror,
    });
    const frame = () => primingFrame(randomUUID(), options.retryMs);
    const node = toNodeHandler(
      { fetch: async (...args) => primedResponse(await handler.fetch(...args), frame) },
      { onerror },
    );
    return { handler, node };
  }

  serve(req: McpHttpRequest, res: ServerResponse, body: unknown, scope: ChangeScope) {
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
    await this.built?.handler.close();
  }
}
