import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type {
  Client,
  FetchLike,
  StreamableHTTPClientTransport,
  Tool,
} from '@modelcontextprotocol/client';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import { PACKAGE } from '../../platform/config/package-info.js';
import { TenantEgress } from '../../platform/http/tenant-egress.js';
import { type CallSetup, answerAsks } from './upstream-call-setup.js';
import { DeploymentMark } from '../../platform/state/deployment-mark.js';
import { ProtocolErrorCode, mcpClientSdk } from '../mcp-sdk.js';
import { egressFetch } from './upstream-fetch.js';
import { originOf, upstreamKey } from './upstream-key.js';
import {
  MAX_UPSTREAM_CONNECTIONS,
  MAX_UPSTREAM_LIST_PAGES,
  MAX_UPSTREAM_RESPONSE_BYTES,
  UPSTREAM_IDLE_MS,
} from './upstream.limits.js';
import type { UpstreamTarget } from './upstream.types.js';

/** Called when a connected upstream says its tools changed, with its new list. */
export type ToolsChangedListener = (target: UpstreamTarget, tools: Tool[]) => void;

/** Called when a connected upstream says its prompts or its resources changed. */
export type ListChangedListener = (target: UpstreamTarget, list: 'prompts' | 'resources') => void;

interface Pooled {
  target: UpstreamTarget;
  client: Promise<Client>;
  /** Set once connecting started: a 2025-era session is ended with DELETE when dropped. */
  transport?: StreamableHTTPClientTransport;
  users: number;
  lastUsed: number;
  closed: boolean;
}

/**
 * The shared connection declares every input capability, so an upstream lists the tools that
 * ask (some list them only to clients that can answer); a call that can answer gets a
 * connection of its own (see dedicated), and one that cannot hears the upstream say so.
 */
const SHARED_ASKS: CallSetup = {
  capabilities: { elicitation: {}, sampling: {}, roots: {} },
  ask: ({ method }) =>
    Promise.reject(
      // Asked by a connected client, so the client SDK is loaded.
      new (mcpClientSdk.get().ProtocolError)(
        ProtocolErrorCode.InvalidRequest,
        `${method}: the gateway relays this upstream's requests only to an MCP client in a 2025-era session that declared it answers them`,
      ),
    ),
};

/** How long dropping a connection waits for the server to end its session. */
const SESSION_END_WAIT_MS = 1000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Waits for `promise`, or rejects with the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: Error) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

/**
 * The gateway's MCP client connections to upstream servers, one per registration (see
 * upstreamKey) and replica, shared by every call and listing of it (and one of its own for a
 * call that needs it: see dedicated). A connection negotiates the
 * protocol era itself (`server/discover` for 2026-07-28, else the 2025 `initialize`), sends the
 * registration's headers, and reaches the server only through TenantEgress. Connections idle
 * for UPSTREAM_IDLE_MS close, at most MAX_UPSTREAM_CONNECTIONS stay open, and one that failed
 * is dropped so the next use connects again.
 */
@Injectable()
export class UpstreamConnections implements OnModuleDestroy {
  private readonly logger = new Logger('UpstreamMcp');
  private readonly pool = new Map<string, Pooled>();
  private readonly listeners = new Set<ToolsChangedListener>();
  private readonly listListeners = new Set<ListChangedListener>();
  private readonly fetch: FetchLike;
  private readonly connectTimeoutMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    config: ConfigService<GatewayConfig, true>,
    egress: TenantEgress,
    mark: DeploymentMark,
  ) {
    this.connectTimeoutMs = config.get('tools', { infer: true }).timeoutMs;
    this.fetch = egressFetch(
      () => egress.dispatcher(),
      MAX_UPSTREAM_RESPONSE_BYTES,
      () => mark.headers(),
    );
    this.sweeper = setInterval(() => this.closeIdle(), Math.min(60_000, UPSTREAM_IDLE_MS));
    this.sweeper.unref();
  }

  /** Hears `notifications/tools/list_changed` of every connection (the listing cache does). */
  onToolsChanged(listener: ToolsChangedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Hears `notifications/prompts/list_changed` and `…/resources/list_changed` of every shared
   * connection (the MCP host tells its own listening clients).
   */
  onListChanged(listener: ListChangedListener): () => void {
    this.listListeners.add(listener);
    return () => this.listListeners.delete(listener);
  }

  /**
   * Runs `work` with a connected client of `target` (connecting first when there is none).
   * `signal` stops the wait for a connection, not the connection others share.
   */
  async use<T>(
    target: UpstreamTarget,
    signal: AbortSignal,
    work: (client: Client) => Promise<T>,
  ): Promise<T> {
    const key = upstreamKey(target);
    let pooled = this.pool.get(key);
    if (!pooled) {
      this.makeRoom();
      const created = { target, users: 0, lastUsed: Date.now(), closed: false } as Pooled;
      created.client = this.connect(key, created);
      created.client.catch(() => this.drop(key, created));
      this.pool.set(key, created);
      pooled = created;
    }
    pooled.users += 1;
    try {
      return await work(await abortable(pooled.client, signal));
    } finally {
      pooled.users -= 1;
      pooled.lastUsed = Date.now();
    }
  }

  /** Closes the connection of `target` (after a failure that may have broken it). */
  discard(target: UpstreamTarget): void {
    const key = upstreamKey(target);
    const pooled = this.pool.get(key);
    if (pooled) void this.drop(key, pooled);
  }

  /** Closes every connection of one registered upstream, whatever its URL or headers were. */
  forget(matches: (target: UpstreamTarget) => boolean): void {
    for (const [key, pooled] of this.pool) if (matches(pooled.target)) void this.drop(key, pooled);
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    const closing = [...this.pool.entries()].map(([key, pooled]) => this.drop(key, pooled));
    await Promise.all(closing);
  }

  /**
   * Runs `work` on a connection of its own, closed after it: for a call whose upstream may ask
   * the calling client (2025-era requests pushed on the call's stream: `setup.capabilities` and
   * `setup.ask`) or whose log messages the caller hears (`setup.onLog`), which a shared
   * connection could not tell apart from other calls'.
   */
  async dedicated<T>(
    target: UpstreamTarget,
    setup: CallSetup,
    signal: AbortSignal,
    work: (client: Client) => Promise<T>,
  ): Promise<T> {
    const opening = this.open(target, setup);
    try {
      const { client } = await abortable(opening, signal);
      if (setup.logLevel && client.getProtocolEra() === 'legacy') {
        // A 2025-era server logs at the connection's level (2026-07-28: the request's `_meta`).
        if (client.getServerCapabilities()?.logging) await client.setLoggingLevel(setup.logLevel);
      }
      return await work(client);
    } finally {
      void opening.then(
        ({ client, transport }) => this.close(client, transport),
        () => undefined,
      );
    }
  }

  private async connect(key: string, pooled: Pooled): Promise<Client> {
    const { target } = pooled;
    const { client } = await this.open(target, {
      ...SHARED_ASKS,
      listChanged: (tools) => {
        for (const listener of this.listeners) listener(target, tools);
      },
      otherListChanged: (list) => {
        for (const listener of this.listListeners) listener(target, list);
      },
      beforeConnect: (opened, openedTransport) => {
        pooled.transport = openedTransport;
        // The server ended the session or the transport gave up: the next use connects again.
        opened.onclose = () => void this.drop(key, pooled);
      },
    });
    this.logger.log(
      {
        tenant_id: target.tenantId,
        toolset: target.toolset,
        upstream: target.name,
        endpoint: originOf(target.url),
        era: client.getProtocolEra(),
        protocol_version: client.getNegotiatedProtocolVersion(),
      },
      'connected to upstream MCP server',
    );
    return client;
  }

  /** A connected client of `target`, as `setup` describes it. */
  private async open(
    target: UpstreamTarget,
    setup: CallSetup & {
      listChanged?: (tools: Tool[]) => void;
      otherListChanged?: (list: 'prompts' | 'resources') => void;
      beforeConnect?: (client: Client, transport: StreamableHTTPClientTransport) => void;
    },
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    // The client SDK is imported with the first connection (../mcp-sdk.ts).
    const { Client, StreamableHTTPClientTransport } = await mcpClientSdk.load();
    const { listChanged, otherListChanged } = setup;
    // The gateway lists an upstream's prompts and resources live: a change is only passed on.
    const passOn = (list: 'prompts' | 'resources') =>
      otherListChanged && {
        autoRefresh: false,
        onChanged: (error: Error | null) => {
          if (!error) otherListChanged(list);
        },
      };
    const client = new Client(
      { name: PACKAGE.name, version: PACKAGE.version },
      {
        versionNegotiation: { mode: 'auto' },
        listMaxPages: MAX_UPSTREAM_LIST_PAGES,
        ...(setup.capabilities && { capabilities: setup.capabilities }),
        ...(listChanged && {
          listChanged: {
            tools: {
              onChanged: (error: Error | null, tools: Tool[] | null) => {
                if (!error && tools) listChanged(tools);
              },
            },
            ...(otherListChanged && { prompts: passOn('prompts'), resources: passOn('resources') }),
          },
        }),
      },
    );
    answerAsks(client, setup);
    const onLog = setup.onLog;
    if (onLog) {
      client.setNotificationHandler('notifications/message', ({ params }) =>
        onLog({ level: params.level, data: params.data as JsonValue }),
      );
    }
    const transport = new StreamableHTTPClientTransport(new URL(target.url), {
      fetch: this.fetch,
      requestInit: { headers: { ...target.headers } },
      // The notification stream reconnects a few times; past that, listings refresh on the TTL.
      reconnectionOptions: {
        initialReconnectionDelay: 1000,
        maxReconnectionDelay: 30_000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 3,
      },
    });
    client.onerror = (error) => {
      // Stream hiccups the transport recovers from; never the headers (they are not in errors).
      this.logger.debug(
        { reason: error.message, upstream: target.name, endpoint: originOf(target.url) },
        'upstream MCP connection reported an error',
      );
    };
    setup.beforeConnect?.(client, transport);
    try {
      await client.connect(transport, { timeout: this.connectTimeoutMs });
    } catch (error) {
      await this.close(client, transport);
      throw error;
    }
    return { client, transport };
  }

  /** Ends the connection: its 2025-era session politely and briefly, then the client. */
  private async close(client: Client, transport?: StreamableHTTPClientTransport): Promise<void> {
    // The server's session would otherwise live until its timeout.
    if (transport?.sessionId !== undefined) {
      const ending = transport.terminateSession().catch(() => undefined);
      await Promise.race([ending, sleep(SESSION_END_WAIT_MS)]);
    }
    await client.close().catch(() => undefined);
  }

  private drop(key: string, pooled: Pooled): Promise<void> {
    if (this.pool.get(key) === pooled) this.pool.delete(key);
    if (pooled.closed) return Promise.resolve();
    pooled.closed = true;
    return pooled.client.then(
      (client) => this.close(client, pooled.transport),
      () => undefined,
    );
  }

  /** Closes the least recently used idle connection when the pool is full. */
  private makeRoom(): void {
    if (this.pool.size < MAX_UPSTREAM_CONNECTIONS) return;
    let oldest: [string, Pooled] | undefined;
    for (const entry of this.pool) {
      if (entry[1].users === 0 && (!oldest || entry[1].lastUsed < oldest[1].lastUsed)) {
        oldest = entry;
      }
    }
    if (oldest) void this.drop(...oldest);
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const [key, pooled] of this.pool) {
      if (pooled.users === 0 && now - pooled.lastUsed > UPSTREAM_IDLE_MS) {
        void this.drop(key, pooled);
      }
    }
  }
}
