import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { type RegisteredSession, SessionRegistry } from './session-registry.js';

describe('SessionRegistry', () => {
  let registry: SessionRegistry<RegisteredSession>;
  const closed: string[] = [];
  const session = (id: string, inFlight = 0): RegisteredSession => {
    const created: RegisteredSession = {
      id,
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

  beforeEach(() => {
    jest.useFakeTimers();
    closed.length = 0;
    registry = new SessionRegistry({ maxSessions: 2, sessionIdleMs: 10_000 });
  });
  afterEach(async () => {
    await registry.closeAll();
    jest.useRealTimers();
  });

  it('makes room by closing the least recently used idle session, never a busy one', async () => {
    const a = session('a');
    session('b');
    registry.touch(a);
    expect(await registry.makeRoom()).toBe(true);
    expect(closed).toEqual(['b']);
    session('c', 1);
    a.inFlight = 1;
    expect(await registry.makeRoom()).toBe(false);
    expect(registry.size).toBe(2);
  });

  it('closes sessions idle for longer than the limit, unless busy', () => {
    session('idle');
    session('busy', 1);
    jest.advanceTimersByTime(5000);
    expect(closed).toEqual([]);
    jest.advanceTimersByTime(7500);
    expect(closed).toEqual(['idle']);
    expect(registry.get('busy')).toBeDefined();
  });
});
