import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { type RegisteredSession, type SessionLimits, SessionRegistry } from './session-registry.js';

describe('SessionRegistry', () => {
  let registry: SessionRegistry<RegisteredSession>;
  const closed: string[] = [];
  const use = (limits: Partial<SessionLimits>) => {
    registry = new SessionRegistry({
      maxSessions: 2,
      maxSessionsPerTenant: 2,
      maxSessionsPerKey: 2,
      sessionIdleMs: 10_000,
      ...limits,
    });
  };
  /** Opens a session the way the transports do: make room, then add. */
  const open = (id: string, tenantId = 'acme', keyId = 'k-acme', inFlight = 0) => {
    const room = registry.makeRoom({ tenantId, keyId });
    if (room) return room;
    const created: RegisteredSession = {
      id,
      tenantId,
      keyId,
      lastSeen: Date.now(),
      inFlight,
      close: () => {
        closed.push(id);
        registry.delete(created);
        return Promise.resolve();
      },
    };
    registry.add(created);
    return created;
  };
  const session = (id: string) => {
    const found = registry.get(id);
    if (!found) throw new Error(`no session ${id}`);
    return found;
  };

  beforeEach(() => {
    jest.useFakeTimers();
    closed.length = 0;
    use({});
  });
  afterEach(async () => {
    await registry.closeAll();
    jest.useRealTimers();
  });

  it('makes room by closing the least recently used idle session, never a busy one', () => {
    open('a');
    open('b');
    registry.touch(session('a'));
    open('c', 'acme', 'k-acme', 1);
    expect(closed).toEqual(['b']);
    session('a').inFlight = 1;
    expect(open('d')).toEqual({ reason: 'busy', retryAfterS: 1 });
    expect(registry.size).toBe(2);
  });

  it('never evicts another tenant: a full replica answers "full" to a tenant with no sessions', () => {
    use({ maxSessions: 4, maxSessionsPerTenant: 4, maxSessionsPerKey: 4 });
    open('acme-1', 'acme', 'k-acme');
    for (let i = 0; i < 3; i++) open(`beta-${i}`, 'beta', 'k-beta');
    // beta, at the replica limit, closes its own least recently used session...
    open('beta-3', 'beta', 'k-beta');
    expect(closed).toEqual(['beta-0']);
    expect(registry.get('acme-1')).toBeDefined();
    // ...while a third tenant, with nothing of its own to close, is refused.
    const refused = open('gamma-0', 'gamma', 'k-gamma');
    expect(refused).toMatchObject({ reason: 'full' });
    expect(closed).toEqual(['beta-0']);
  });

  it('holds each tenant to its quota by closing its own sessions', () => {
    use({ maxSessions: 10, maxSessionsPerTenant: 3, maxSessionsPerKey: 10 });
    open('acme-1', 'acme', 'k-acme');
    for (let i = 0; i < 8; i++) open(`beta-${i}`, 'beta', 'k-beta');
    expect(closed).toEqual(['beta-0', 'beta-1', 'beta-2', 'beta-3', 'beta-4']);
    expect(registry.size).toBe(4);
    expect(registry.get('acme-1')).toBeDefined();
    // At the tenant quota, another key of the same tenant may close the tenant's idle session.
    open('beta-other', 'beta', 'k-beta-2');
    expect(closed).toContain('beta-5');
  });

  it('holds each key to its quota across tenants, closing its own session first', () => {
    use({ maxSessions: 10, maxSessionsPerTenant: 10, maxSessionsPerKey: 2 });
    open('root-a', 'a', 'root');
    open('root-b', 'b', 'root');
    open('ops-a', 'a', 'ops');
    open('root-a2', 'a', 'root');
    expect(closed).toEqual(['root-a']);
    open('root-c', 'c', 'root');
    expect(closed).toEqual(['root-a', 'root-b']);
    expect(registry.get('ops-a')).toBeDefined();
  });

  it('closes sessions idle for longer than the limit, unless busy', () => {
    open('idle');
    open('busy', 'acme', 'k-acme', 1);
    jest.advanceTimersByTime(5000);
    expect(closed).toEqual([]);
    jest.advanceTimersByTime(7500);
    expect(closed).toEqual(['idle']);
    expect(registry.get('busy')).toBeDefined();
  });
});
