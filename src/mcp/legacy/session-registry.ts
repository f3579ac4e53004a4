/** Who a session belongs to: quotas count per tenant and per key. */
export interface SessionOwner {
  /** The tenant the session was opened for. */
  tenantId: string;
  /** The key that opened it. */
  keyId: string;
}

/** What the registry needs of a session. */
export interface RegisteredSession extends SessionOwner {
  id: string;
  lastSeen: number;
  /** Requests being answered; a busy session is never expired or evicted. */
  inFlight: number;
  close(): Promise<void>;
}

export interface SessionLimits {
  /** Sessions on this replica. */
  maxSessions: number;
  /** Sessions one tenant may hold. */
  maxSessionsPerTenant: number;
  /** Sessions one key may hold, across tenants (Infinity: no key quota, e.g. auth off). */
  maxSessionsPerKey: number;
  sessionIdleMs: number;
}

/** Why a new session does not fit, and when trying again may help. */
export interface NoRoom {
  /** `busy`: the caller's own sessions are all answering; `full`: others' sessions fill it. */
  reason: 'busy' | 'full';
  retryAfterS: number;
}

/** Retry-After for a replica full of other tenants' sessions: an idle one may expire by then. */
const MAX_FULL_RETRY_S = 60;

/**
 * Live MCP sessions of this replica, bounded three ways: per key, per tenant and per replica
 * (SVC_MCP_SESSIONS_PER_KEY, SVC_MCP_SESSIONS_PER_TENANT, SVC_MCP_MAX_SESSIONS), plus a sweep that
 * closes a session idle for `sessionIdleMs`. Making room only ever closes the caller's own
 * least recently used idle sessions: at the key quota one of the key's (in this tenant first),
 * at the tenant quota or the replica limit one of the tenant's (the key's own first). When none
 * of them is idle, or the replica is full of other tenants' sessions, there is no room (503):
 * no tenant can evict another's.
 * The map's insertion order is the recency order: every use moves a session to the end.
 */
export class SessionRegistry<S extends RegisteredSession> {
  private readonly sessions = new Map<string, S>();
  private readonly perTenant = new Map<string, number>();
  private readonly perKey = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly limits: SessionLimits) {
    const every = Math.min(60_000, Math.max(1000, limits.sessionIdleMs / 4));
    this.sweeper = setInterval(() => this.sweep(), every).unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): S | undefined {
    return this.sessions.get(id);
  }

  add(session: S): void {
    this.sessions.set(session.id, session);
    bump(this.perTenant, session.tenantId, 1);
    bump(this.perKey, session.keyId, 1);
  }

  /** Forgets `session` (only that object: a later session cannot share its random id anyway). */
  delete(session: S): void {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    bump(this.perTenant, session.tenantId, -1);
    bump(this.perKey, session.keyId, -1);
  }

  /** Marks a use: now is its last activity, and it becomes the most recently used. */
  touch(session: S): void {
    session.lastSeen = Date.now();
    if (this.sessions.delete(session.id)) this.sessions.set(session.id, session);
  }

  /**
   * Makes room for a session of `owner`, closing the owner's least recently used idle sessions
   * as needed, and says why when it cannot. Synchronous, so the caller's `add` right after
   * cannot be overtaken by another request.
   */
  makeRoom(owner: SessionOwner): NoRoom | null {
    const ownKey = (s: S) => s.keyId === owner.keyId;
    const ownTenant = (s: S) => s.tenantId === owner.tenantId;
    const ownBoth = (s: S) => ownKey(s) && ownTenant(s);
    const { maxSessions, maxSessionsPerTenant, maxSessionsPerKey } = this.limits;
    if ((this.perKey.get(owner.keyId) ?? 0) >= maxSessionsPerKey) {
      if (!this.evictOne(ownBoth, ownKey)) return { reason: 'busy', retryAfterS: 1 };
    }
    if ((this.perTenant.get(owner.tenantId) ?? 0) >= maxSessionsPerTenant) {
      if (!this.evictOne(ownBoth, ownTenant)) return { reason: 'busy', retryAfterS: 1 };
    }
    if (this.sessions.size >= maxSessions && !this.evictOne(ownBoth, ownTenant)) {
      return (this.perTenant.get(owner.tenantId) ?? 0) > 0
        ? { reason: 'busy', retryAfterS: 1 }
        : { reason: 'full', retryAfterS: this.untilOneMayExpire() };
    }
    return null;
  }

  values(): IterableIterator<S> {
    return this.sessions.values();
  }

  /** Stops the sweep and closes every session. */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((session) => session.close()));
  }

  /** Closes the least recently used idle session matching the first filter that has one. */
  private evictOne(...filters: Array<(session: S) => boolean>): boolean {
    for (const matches of filters) {
      for (const session of this.sessions.values()) {
        if (session.inFlight === 0 && matches(session)) {
          this.delete(session);
          void session.close().catch(() => undefined); // closing an idle transport cannot matter
          return true;
        }
      }
    }
    return false;
  }

  /** Seconds until the replica's least recently used session would be swept, if left idle. */
  private untilOneMayExpire(): number {
    const oldest = this.sessions.values().next();
    if (oldest.done) return 1;
    const ms = oldest.value.lastSeen + this.limits.sessionIdleMs - Date.now();
    return Math.min(MAX_FULL_RETRY_S, Math.max(1, Math.ceil(ms / 1000)));
  }

  private sweep(): void {
    const cutoff = Date.now() - this.limits.sessionIdleMs;
    for (const session of this.sessions.values()) {
      if (session.lastSeen > cutoff) break; // the rest were used more recently
      if (session.inFlight === 0) void session.close();
    }
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}
