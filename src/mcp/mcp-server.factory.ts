import { Inject, Injectable } from '@nestjs/common';
import type {
  CacheHint,
  Server,
  ServerCapabilities,
  ServerContext,
  ServerOptions,
} from '@modelcontextprotocol/server';
import { CLIENT_CAPABILITIES_META_KEY, mcpServerSdk } from '../tools/mcp-sdk.js';
import type { ChangeScope } from './changes/change-scope.js';
import { McpChanges } from './changes/mcp-changes.js';
import { ClientLogLevel } from './features/client-log-level.js';
import { McpCatalogHandler } from './features/mcp-catalog.handler.js';
import { SessionChanges } from './legacy/session-changes.js';
import { MCP_MODULE_OPTIONS, type McpModuleOptions } from './mcp.options.js';
import { McpToolsHandler } from './mcp-tools.handler.js';
import { listServedRevisions } from './modern/discover-revisions.js';
import { LEGACY_REVISIONS } from './protocol-revisions.js';

/**
 * How long a 2026-07-28 client may keep a list (SEP-2549). The gateway announces every change
 * it makes (tools, prompts, resources; an upstream's own announcements) to `subscriptions/listen`
 * streams, which invalidate a listening client's cache at once; a minute bounds what a client
 * that does not listen may miss. `private`: a list depends on the tenant, toolset and key.
 * A read is never fresh for long (a run record changes with every turn, an upstream's document
 * whenever it likes), and a discovery answer is the same for everyone while the process lives.
 */
export const LIST_TTL_MS = 60_000;
const DISCOVER_TTL_MS = 3_600_000;
const LIST_HINT: CacheHint = { ttlMs: LIST_TTL_MS, cacheScope: 'private' };
const CACHE_HINTS: ServerOptions['cacheHints'] = {
  'tools/list': LIST_HINT,
  'prompts/list': LIST_HINT,
  'resources/list': LIST_HINT,
  'resources/templates/list': LIST_HINT,
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
  'server/discover': { ttlMs: DISCOVER_TTL_MS, cacheScope: 'public' },
};

/**
 * What each kind of Server declares, and only what it really does:
 * - `modern` (2026-07-28, one request): list changes and resource updates reach a
 *   `subscriptions/listen` stream; the log level is the request's own.
 * - `session` (2025, one session): list changes and subscribed resources' updates go out on
 *   the session's GET stream; `logging/setLevel` holds for the session.
 * - `stateless` (2025, one POST, SVC_MCP_MODE=stateless): no session to keep a subscription,
 *   a log level or a stream for notifications in, so none of them is declared (an SDK client
 *   then sends no `logging/setLevel` or `resources/subscribe`; one that does gets -32601).
 */
const CAPABILITIES: Record<'modern' | 'session' | 'stateless', ServerCapabilities> = {
  modern: {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    completions: {},
    logging: {},
  },
  session: {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    completions: {},
    logging: {},
  },
  stateless: { tools: {}, prompts: {}, resources: {}, completions: {} },
};

/**
 * Builds the SDK's low-level MCP Server with the gateway's handlers; one Server serves one
 * 2025 session, one 2025 stateless POST or one 2026-07-28 request (the SDK binds the era to
 * the instance), and is never reused for another: nothing of one client (its log level, its
 * capabilities, its subscriptions, its negotiated revision) can reach the next. Building one
 * costs a few microseconds. The low-level Server (not McpServer) because what it lists is not
 * fixed: it is the toolset, prompts and resources of whichever tenant a request names. Used
 * only once McpHttpHost has loaded the SDK (tools/mcp-sdk.ts).
 */
@Injectable()
export class McpServerFactory {
  private readonly info: { name: string; version: string };

  constructor(
    private readonly tools: McpToolsHandler,
    private readonly catalog: McpCatalogHandler,
    private readonly changes: McpChanges,
    @Inject(MCP_MODULE_OPTIONS) options: McpModuleOptions,
  ) {
    this.info = { name: 'svc-gateway', version: options.version ?? '0.0.0' };
  }

  /** A Server for one 2026-07-28 request or one 2025 stateless POST. */
  create(kind: 'modern' | 'stateless'): Server {
    const { Server } = mcpServerSdk.get();
    const server = new Server(this.info, {
      capabilities: CAPABILITIES[kind],
      supportedProtocolVersions: LEGACY_REVISIONS,
      ...(kind === 'modern' && { cacheHints: CACHE_HINTS }),
    });
    if (kind === 'modern') listServedRevisions(server);
    // The 2026-07-28 request's own level; a stateless 2025 POST has none.
    const logLevel = kind === 'modern' ? new ClientLogLevel() : undefined;
    server.setRequestHandler('tools/call', (request, ctx) =>
      this.tools.call(request, ctx, logLevel, envelopeCapabilities(ctx)),
    );
    this.common(server);
    return server;
  }

  /** The Server of one 2025 session, opened for `scope` (its tenant, toolset and key). */
  createSession(scope: ChangeScope): Server {
    const { Server } = mcpServerSdk.get();
    const server = new Server(this.info, {
      capabilities: CAPABILITIES.session,
      supportedProtocolVersions: LEGACY_REVISIONS,
    });
    const logLevel = new ClientLogLevel();
    server.setRequestHandler('logging/setLevel', (request) => {
      logLevel.set(request.params.level);
      return {};
    });
    server.setRequestHandler('tools/call', (request, ctx) =>
      // What the session's `initialize` declared (the SDK's only accessor for it).
      this.tools.call(request, ctx, logLevel, server.getClientCapabilities()),
    );
    this.common(server);
    const changes = new SessionChanges(server, this.changes, scope);
    server.setRequestHandler('resources/subscribe', (request) => {
      changes.subscribe(request.params.uri);
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', (request) => {
      changes.unsubscribe(request.params.uri);
      return {};
    });
    const onclose = server.onclose;
    server.onclose = () => {
      changes.close();
      onclose?.();
    };
    return server;
  }

  /** What every kind answers alike, for the tenant and toolset each request carries. */
  private common(server: Server): void {
    const catalog = this.catalog;
    server.setRequestHandler('tools/list', (_request, ctx) => this.tools.list(ctx));
    server.setRequestHandler('prompts/list', (_request, ctx) => catalog.listPrompts(ctx));
    server.setRequestHandler('prompts/get', (request, ctx) => catalog.getPrompt(request, ctx));
    server.setRequestHandler('resources/list', (_request, ctx) => catalog.listResources(ctx));
    server.setRequestHandler('resources/templates/list', (_request, ctx) =>
      catalog.listTemplates(ctx),
    );
    server.setRequestHandler('resources/read', (request, ctx) =>
      catalog.readResource(request, ctx),
    );
    server.setRequestHandler('completion/complete', (request, ctx) =>
      catalog.complete(request, ctx),
    );
  }
}

/** The calling client's declared capabilities on 2026-07-28 (the request's `_meta`). */
function envelopeCapabilities(ctx: ServerContext): unknown {
  // The SDK types the envelope as `{}`; it holds the reserved `_meta` keys.
  return (ctx.mcpReq.envelope as { [key: string]: unknown } | undefined)?.[
    CLIENT_CAPABILITIES_META_KEY
  ];
}
