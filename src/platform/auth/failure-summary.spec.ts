import { describe, expect, it } from '@jest/globals';
import type { AuditEvent } from '../audit/audit-event.js';
import { type AuthFailure, FailureSummary } from './failure-summary.js';

describe('FailureSummary', () => {
  const failure = (over: Partial<AuthFailure> = {}): AuthFailure => ({
    client: '192.0.2.1',
    status: 401,
    reason: 'the API key is not valid',
    method: 'GET',
    path: '/v1/studio',
    ...over,
  });

  it('records the first failure of a kind, then one summary with the count of the rest', () => {
    const events: AuditEvent[] = [];
    let now = 1000;
    const summary = new FailureSummary(
      (event) => events.push(event),
      () => now,
    );
    for (let i = 0; i < 500; i++) summary.report(failure());
    summary.report(failure({ reason: 'an API key is required' }));
    expect(events).toEqual([
      {
        kind: 'auth.failed',
        tenantId: undefined,
        actor: undefined,
        at: 1000,
        details: {
          status: 401,
          method: 'GET',
          path: '/v1/studio',
          reason: 'the API key is not valid',
          client: '192.0.2.1',
        },
      },
      expect.objectContaining({
        details: expect.objectContaining({ reason: 'an API key is required' }),
      }),
    ]);
    now = 61_000;
    summary.flush();
    expect(events).toHaveLength(3);
    expect(events[2]).toMatchObject({
      kind: 'auth.failed',
      details: { summary: true, count: 499, since: 1000, until: 1000, client: '192.0.2.1' },
    });
    // A new window records the first failure again; a quiet window records nothing.
    summary.report(failure());
    expect(events).toHaveLength(4);
    summary.flush();
    summary.flush();
    expect(events).toHaveLength(4);
  });

  it('keeps a refused key in its own tenant and anonymous failures in none', () => {
    const events: AuditEvent[] = [];
    const summary = new FailureSummary((event) => events.push(event));
    summary.report(failure({ status: 403, reason: 'x', tenantId: 'acme', actor: 'ops-1' }));
    summary.report(failure());
    expect(events.map((e) => e.tenantId)).toEqual(['acme', undefined]);
  });

  it('bounds the kinds it tracks: the rest share one summary without a tenant', () => {
    const events: AuditEvent[] = [];
    const summary = new FailureSummary((event) => events.push(event), Date.now, 10);
    for (let i = 0; i < 1000; i++) {
      summary.report(
        failure({ client: `198.51.100.${i % 250}`, tenantId: i % 2 ? 'acme' : undefined }),
      );
    }
    expect(events).toHaveLength(10);
    summary.flush();
    // Ten summaries of the tracked kinds (each seen 4 times), one of everything else.
    expect(events).toHaveLength(21);
    expect(events[10]).toMatchObject({ details: { summary: true, count: 3 } });
    expect(events[20]).toMatchObject({
      tenantId: undefined,
      details: { summary: true, client: '*', count: 960 },
    });
  });
});
