import { describe, expect, it } from '@jest/globals';
import type { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../config/gateway-config.js';
import { MemoryAuditSink } from './memory-audit.sink.js';

function sink(eventsPerTenant: number, maxTenants: number): MemoryAuditSink {
  const config = { get: () => ({ eventsPerTenant, maxTenants }) };
  return new MemoryAuditSink(config as unknown as ConfigService<GatewayConfig, true>);
}

describe('MemoryAuditSink', () => {
  it("keeps a tenant's events through floods of anonymous and other tenants' events", async () => {
    const audit = sink(100, 10);
    audit.record({ kind: 'run.started', tenantId: 'audited', details: { run_id: 'r1' } });
    for (let i = 0; i < 10_500; i++) audit.record({ kind: 'auth.failed', details: { i } });
    for (let i = 0; i < 10_500; i++) {
      audit.record({ kind: 'tool.invoked', tenantId: 'noisy', details: { i } });
    }
    expect(await audit.list({ tenantId: 'audited' })).toEqual([
      expect.objectContaining({ kind: 'run.started', details: { run_id: 'r1' } }),
    ]);
    // Each flood keeps only its own newest events.
    const anonymous = await audit.list({ kind: 'auth.failed', limit: 1000 });
    expect(anonymous).toHaveLength(100);
    expect(anonymous[0].details).toEqual({ i: 10_499 });
    expect(await audit.list({ tenantId: 'noisy', limit: 1000 })).toHaveLength(100);
  });

  it('lists newest first across every ring without a tenant, filtered by kind and limit', async () => {
    const audit = sink(10, 10);
    audit.record({ kind: 'run.started', tenantId: 'a', details: { n: 1 } });
    audit.record({ kind: 'auth.failed', details: { n: 2 } });
    audit.record({ kind: 'run.started', tenantId: 'b', details: { n: 3 } });
    audit.record({ kind: 'run.completed', tenantId: 'a', details: { n: 4 } });
    const all = await audit.list({});
    expect(all.map((e) => e.details.n)).toEqual([4, 3, 2, 1]);
    expect(all.map((e) => e.id)).toEqual([3, 2, 1, 0]);
    expect((await audit.list({ kind: 'run.started' })).map((e) => e.details.n)).toEqual([3, 1]);
    expect((await audit.list({ limit: 2 })).map((e) => e.details.n)).toEqual([4, 3]);
    // A tenant sees its ring only: never events of no tenant, never another tenant's.
    expect((await audit.list({ tenantId: 'a' })).map((e) => e.details.n)).toEqual([4, 1]);
    expect(await audit.list({ tenantId: 'c' })).toEqual([]);
  });

  it('bounds the tenants, dropping the ring written least recently', async () => {
    const audit = sink(10, 2);
    audit.record({ kind: 'run.started', tenantId: 'old', details: {} });
    audit.record({ kind: 'run.started', tenantId: 'busy', details: {} });
    audit.record({ kind: 'run.started', tenantId: 'old', details: {} });
    audit.record({ kind: 'run.started', tenantId: 'new', details: {} });
    expect(await audit.list({ tenantId: 'busy' })).toEqual([]);
    expect(await audit.list({ tenantId: 'old' })).toHaveLength(2);
    expect(await audit.list({ tenantId: 'new' })).toHaveLength(1);
    // Events of no tenant are not a tenant ring and are never dropped for one.
    audit.record({ kind: 'auth.failed', details: {} });
    audit.record({ kind: 'run.started', tenantId: 'newer', details: {} });
    expect(await audit.list({ kind: 'auth.failed' })).toHaveLength(1);
  });

  it('counts writes in a row as the latest, whoever wrote in between', async () => {
    const audit = sink(10, 2);
    for (const tenantId of ['a', 'a', 'b', 'a', 'a', 'c']) {
      audit.record({ kind: 'run.started', tenantId, details: {} });
    }
    expect(await audit.list({ tenantId: 'b' })).toEqual([]);
    expect(await audit.list({ tenantId: 'a' })).toHaveLength(4);
    audit.record({ kind: 'run.started', tenantId: 'c', details: {} });
    audit.record({ kind: 'run.started', tenantId: 'd', details: {} });
    expect(await audit.list({ tenantId: 'a' })).toEqual([]);
    expect(await audit.list({ tenantId: 'c' })).toHaveLength(2);
  });

  it('filters by kind or kind prefix, run, actor and time, and pages below an id', async () => {
    const audit = sink(100, 10);
    const at = (minute: number) => Date.UTC(2026, 0, 1, 0, minute);
    audit.record({
      kind: 'run.started',
      tenantId: 'a',
      actor: 'k1',
      at: at(1),
      details: { run_id: 'r1' },
    });
    audit.record({
      kind: 'tool.invoked',
      tenantId: 'a',
      actor: 'k2',
      at: at(2),
      details: { tool: 'echo' },
    });
    audit.record({
      kind: 'run.completed',
      tenantId: 'a',
      actor: 'k1',
      at: at(3),
      details: { run_id: 'r1' },
    });
    audit.record({
      kind: 'run.started',
      tenantId: 'a',
      actor: 'k2',
      at: at(4),
      details: { run_id: 'r2' },
    });
    const kinds = async (query: Parameters<MemoryAuditSink['list']>[0]) =>
      (await audit.list(query)).map(
        (e) => `${e.kind}:${typeof e.details.run_id === 'string' ? e.details.run_id : '-'}`,
      );
    expect(await kinds({ kindPrefix: 'run.' })).toEqual([
      'run.started:r2',
      'run.completed:r1',
      'run.started:r1',
    ]);
    expect(await kinds({ kind: 'run.started' })).toEqual(['run.started:r2', 'run.started:r1']);
    expect(await kinds({ runId: 'r1' })).toEqual(['run.completed:r1', 'run.started:r1']);
    expect(await kinds({ actor: 'k2' })).toEqual(['run.started:r2', 'tool.invoked:-']);
    // since is inclusive, until exclusive.
    expect(await kinds({ since: at(2), until: at(4) })).toEqual([
      'run.completed:r1',
      'tool.invoked:-',
    ]);
    const first = await audit.list({ limit: 2 });
    const rest = await audit.list({ limit: 2, beforeId: first.at(-1)!.id });
    expect([...first, ...rest].map((e) => e.at)).toEqual([at(4), at(3), at(2), at(1)]);
    expect(await audit.list({ beforeId: rest.at(-1)!.id })).toEqual([]);
  });
});
