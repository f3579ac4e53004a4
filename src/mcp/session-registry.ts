/** What the registry needs of a session. */
export interface RegisteredSession {
  id: string;
  lastSeen: number;
  /** Requests being answered; a busy session is never expired or evicted. */
  inFlight: number;
  close(): Promise<void>;
}

/**
 * Live MCP sessions of this replica, bounded two ways: one idle for `idleMs` is closed by a
 * periodic sweep, and at `maxSessions` the least recently used idle one is closed to make
 * room. The map's insertion order is the recency order: every use moves a session to the end.
 * Closing a session must call `delete` (the transport's close handler does).
 */
export class SessionRegistry<S extends RegisteredSession> {
  private readonly sessions = new Map<string, S>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly limits: { maxSessions: number; sessionIdleMs: number }) {
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
  }

  /** Forgets `session` (only that object: a later session cannot share its random id anyway). */
  delete(session: S): void {
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
  }

  /** Marks a use: now is its last activity, and it becomes the most recently used. */
  touch(session: S): void {
    session.lastSeen = Date.now();
    if (this.sessions.delete(session.id)) this.sessions.set(session.id, session);
  }

  /** True when a new session fits, after closing the least recently used idle one if needed. */
  async makeRoom(): Promise<boolean> {
    if (this.sessions.size < this.limits.maxSessions) return true;
    for (const session of this.sessions.values()) {
      if (session.inFlight === 0) {
        await session.close();
        return true;
      }
    }
    return false;
  }

  values(): IterableIterator<S> {
    return this.sessions.values();
  }

  /** Stops the sweep and closes every session. */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((session) => session.close()));
  }

  private sweep(): void {
    const cutoff = Date.now() - this.limits.sessionIdleMs;
    for (const session of this.sessions.values()) {
      if (session.lastSeen > cutoff) break; // the rest were used more recently
      if (session.inFlight === 0) void session.close();
    }
  }
}
