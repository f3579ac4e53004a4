import { describe, expect, it } from '@jest/globals';
import type { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../config/gateway-config.js';
import { MemoryAuditSink } from './memory-audit.sink.js';

function sink(eventsPerTenant: number, maxTenants: number): MemoryAuditSink {
  const config = { get: () => ({ eventsPerTenant, maxTenants }) };
  return new MemoryAuditSink(config as unknown as ConfigService<GatewayConfig, true>);
}

describe('MemoryAuditSink', () => {
  it("keeps a tenant's events through floods of anonymous and other tenants' events", () => {
    const audit = sink(100, 10);
    audit.record({ kind: 'run.started', tenantId: 'audited', details: { run_id: 'r1' } });
    for (let i = 0; i < 10_500; i++) audit.record({ kind: 'auth.failed', details: { i } });
    for (let i = 0; i < 10_500; i++) {
      audit.record({ kind: 'tool.invoked', tenantId: 'noisy', details: { i } });
    }
    expect(audit.list({ tenantId: 'audited' })).toEqual([
      expect.objectContaining({ kind: 'run.started', details: { run_id: 'r1' } }),
    ]);
    // Each flood keeps only its own newest events.
    const anonymous = audit.list({ kind: 'auth.failed', limit: 1000 });
    expect(anonymous).toHaveLength(100);
    expect(anonymous[0].details).toEqual({ i: 10_499 });
    expect(audit.list({ tenantId: 'noisy', limit: 1000 })).toHaveLength(100);
  });

  it('lists newest first across every ring without a tenant, filtered by kind and limit', () => {
    const audit = sink(10, 10);
    audit.record({ kind: 'run.started', tenantId: 'a', details: { n: 1 } });
    audit.record({ kind: 'auth.failed', details: { n: 2 } });
    audit.record({ kind: 'run.started', tenantId: 'b', details: { n: 3 } });
    audit.record({ kind: 'run.completed', tenantId: 'a', details: { n: 4 } });
    const all = audit.list({});
    expect(all.map((e) => e.details.n)).toEqual([4, 3, 2, 1]);
    expect(all.map((e) => e.id)).toEqual([3, 2, 1, 0]);
    expect(audit.list({ kind: 'run.started' }).map((e) => e.details.n)).toEqual([3, 1]);
    expect(audit.list({ limit: 2 }).map((e) => e.details.n)).toEqual([4, 3]);
    // A tenant sees its ring only: never events of no tenant, never another tenant's.
    expect(audit.list({ tenantId: 'a' }).map((e) => e.details.n)).toEqual([4, 1]);
    expect(audit.list({ tenantId: 'c' })).toEqual([]);
  });

  it('bounds the tenants, dropping the ring written least recently', () => {
    const audit = sink(10, 2);
    audit.record({ kind: 'run.started', tenantId: 'old', details: {} });
    audit.record({ kind: 'run.started', tenantId: 'busy', details: {} });
    audit.record({ kind: 'run.started', tenantId: 'old', details: {} });
    audit.record({ kind: 'run.started', tenantId: 'new', details: {} });
    expect(audit.list({ tenantId: 'busy' })).toEqual([]);
    expect(audit.list({ tenantId: 'old' })).toHaveLength(2);
    expect(audit.list({ tenantId: 'new' })).toHaveLength(1);
    // Events of no tenant are not a tenant ring and are never dropped for one.
    audit.record({ kind: 'auth.failed', details: {} });
    audit.record({ kind: 'run.started', tenantId: 'newer', details: {} });
    expect(audit.list({ kind: 'auth.failed' })).toHaveLength(1);
  });
});
