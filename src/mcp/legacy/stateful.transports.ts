import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { BeforeApplicationShutdown, OnApplicationShutdown } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/server';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { IncomingMessages } from '../incoming-messages.js';
import { JsonRpcCode, sendJsonRpcError } from '../json-rpc-error.js';
import type { McpServerFactory } from '../mcp-server.factory.js';
import { PRIMING_EVENTS_FROM } from '../protocol-revisions.js';
import { primeNodeEventStream, primingFrame } from '../sse-priming.js';
import type { McpContext } from '../tenant-context.js';
import { mcpNodeSdk } from '../../tools/mcp-sdk.js';
import {
  type LegacyStreamOptions,
  type McpHttpRequest,
  LegacyTransports,
} from './legacy-transports.js';
import { SessionEventStore } from './session-event.store.js';
import {
  type NoRoom,
  type RegisteredSession,
  type SessionLimits,
  SessionRegistry,
} from './session-registry.js';

/** The SDK transport's id for a session's GET stream (its event store files events under it). */
const GET_STREAM = '_GET_stream';

/**
 * `keyId` is the key that opened it: another key asking for it is told it does not exist.
 * `toolset` is the toolset it was opened for, whose changes it hears.
 */
interface Session extends RegisteredSession {
  toolset: string;
  transport: NodeStreamableHTTPServerTransport;
  server: Server;
  events: SessionEventStore;
}

const NO_ROOM: Record<NoRoom['reason'], string> = {
  busy: 'Service Unavailable: every MCP session this tenant or key may hold is busy; retry later',
  full: 'Service Unavailable: this replica holds as many MCP sessions as it may; retry later',
};

/**
 * SVC_MCP_MODE=stateful: `initialize` opens a session, a Server and a transport of its own
 * (`Mcp-Session-Id` in the answer), for the request's tenant and toolset; later requests name
 * it, and must name the same tenant and toolset (the session hears that toolset's changes).
 * Sessions live in this replica's memory, bounded per key, per tenant and per replica and
 * closed when idle (SessionRegistry); a client whose session was closed gets 404 and, as the
 * spec says, starts a new one. Only POSTs and DELETEs count as activity: an open GET stream
 * alone does not keep a session alive. Every SSE stream of a session (a POST's answer, the GET
 * stream) opens with a priming event for clients of 2025-11-25 and later, whose id resumes it.
 */
export class StatefulTransports
  extends LegacyTransports
  implements BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly sessions: SessionRegistry<Session>;
  /** Set at shutdown: no new GET streams, which would hold the draining HTTP server open. */
  private draining = false;

  constructor(
    private readonly servers: McpServerFactory,
    limits: SessionLimits,
    private readonly streams: LegacyStreamOptions,
  ) {
    super();
    this.sessions = new SessionRegistry(limits);
  }

  get size(): number {
    return this.sessions.size;
  }

  async post(
    req: McpHttpRequest,
    res: ServerResponse,
    incoming: IncomingMessages,
    context: McpContext,
  ) {
    if (req.headers['mcp-session-id'] === undefined && incoming.initialize) {
      return this.open(req, res, incoming, context);
    }
    const session = this.find(req, res, context.actor);
    if (!session || !this.sameScope(session, context, res)) return;
    await this.serve(session, () => session.transport.handleRequest(req, res, incoming.body));
  }

  sessionRevision(sessionId: string, owner: string): string | undefined {
    const session = this.sessions.get(sessionId);
    return session?.keyId === owner ? session.server.getNegotiatedProtocolVersion() : undefined;
  }

  async get(req: McpHttpRequest, res: ServerResponse, owner: string): Promise<void> {
    if (this.draining) {
      // SDK clients reopen a closed stream at once; this one must not keep the server up.
      return sendJsonRpcError(res, {
        status: 503,
        code: JsonRpcCode.Transport,
        message: 'Service Unavailable: the gateway is shutting down',
        headers: { connection: 'close' },
      });
    }
    const session = this.find(req, res, owner);
    if (!session) return;
    this.sessions.touch(session);
    // The SDK opens a fresh GET stream without a priming event; a resumed one replays instead.
    if (req.headers['last-event-id'] === undefined && this.primes(session)) {
      primeNodeEventStream(res, () =>
        primingFrame(session.events.primingId(GET_STREAM), this.streams.retryMs),
      );
    }
    await session.transport.handleRequest(req, res);
  }

  async delete(req: McpHttpRequest, res: ServerResponse, owner: string): Promise<void> {
    const session = this.find(req, res, owner);
    if (session) await this.serve(session, () => session.transport.handleRequest(req, res));
  }

  /** Ends the open GET streams before the HTTP server drains (they would never end). */
  beforeApplicationShutdown(): void {
    this.draining = true;
    for (const session of this.sessions.values()) session.transport.closeStandaloneSSEStream();
  }

  onApplicationShutdown(): Promise<void> {
    return this.sessions.closeAll();
  }

  private async open(
    req: McpHttpRequest,
    res: ServerResponse,
    incoming: IncomingMessages,
    context: McpContext,
  ): Promise<void> {
    const owner = { keyId: context.actor, tenantId: context.tenantId };
    const noRoom = this.sessions.makeRoom(owner);
    if (noRoom) {
      return sendJsonRpcError(res, {
        status: 503,
        code: JsonRpcCode.Transport,
        message: NO_ROOM[noRoom.reason],
        headers: { 'retry-after': String(noRoom.retryAfterS) },
      });
    }
    const id = randomUUID();
    const events = new SessionEventStore();
    const { NodeStreamableHTTPServerTransport } = mcpNodeSdk.get();
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: events,
      retryInterval: this.streams.retryMs,
      keepAliveMs: this.streams.keepAliveMs,
    });
    const server = this.servers.createSession(context);
    const session: Session = {
      id,
      ...owner,
      toolset: context.toolset,
      transport,
      server,
      events,
      lastSeen: Date.now(),
      inFlight: 0,
      close: () => transport.close(),
    };
    // Set before connect(), which chains the Server's own close handling after it.
    transport.onclose = () => this.sessions.delete(session);
    this.sessions.add(session);
    await server.connect(transport);
    await this.serve(session, () => transport.handleRequest(req, res, incoming.body));
    // The SDK refused the initialize: no session came of it.
    if (transport.sessionId === undefined) await transport.close();
  }

  /** The caller's session named by Mcp-Session-Id, or undefined after answering 400/404. */
  private find(req: McpHttpRequest, res: ServerResponse, keyId: string): Session | undefined {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string' || id === '') {
      sendJsonRpcError(res, {
        status: 400,
        code: JsonRpcCode.Transport,
        message: 'Bad Request: Mcp-Session-Id header is required',
      });
      return undefined;
    }
    const session = this.sessions.get(id);
    if (session?.keyId === keyId) return session;
    sendJsonRpcError(res, {
      status: 404,
      code: JsonRpcCode.SessionNotFound,
      message: 'Session not found',
    });
    return undefined;
  }

  /** A session serves the tenant and toolset it was opened for (whose changes it hears). */
  private sameScope(session: Session, context: McpContext, res: ServerResponse): boolean {
    if (session.tenantId === context.tenantId && session.toolset === context.toolset) return true;
    sendJsonRpcError(res, {
      status: 400,
      code: JsonRpcCode.Transport,
      message: `Bad Request: this session was opened for tenant ${JSON.stringify(session.tenantId)} and toolset ${JSON.stringify(session.toolset)}; initialize a new session for another`,
    });
    return false;
  }

  /** Whether the session's client reads priming events (an empty `data`), as the SDK decides. */
  private primes(session: Session): boolean {
    const revision = session.server.getNegotiatedProtocolVersion();
    return revision !== undefined && revision >= PRIMING_EVENTS_FROM;
  }

  private async serve(session: Session, work: () => Promise<void>): Promise<void> {
    this.sessions.touch(session);
    session.inFlight += 1;
    try {
      await work();
    } finally {
      session.inFlight -= 1;
      this.sessions.touch(session);
    }
  }
}
