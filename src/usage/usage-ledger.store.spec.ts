import { describe, expect, it } from '@jest/globals';
import type { QueryResult } from 'typeorm';
import type { StateDatabase } from '../platform/state/state-database.service.js';
import { type UsageEntry, UsageLedger } from './usage-ledger.store.js';

/** A sqlite-flavoured database that records the statements it is sent. */
function setUp() {
  const statements: Array<{ sql: string; params: unknown[] }> = [];
  const closeHooks: Array<() => Promise<unknown>> = [];
  const database = {
    backend: 'sqlite',
    query: (sql: string, params: unknown[] = []) => {
      statements.push({ sql, params });
      return Promise.resolve({ records: [], raw: [] } as QueryResult);
    },
    beforeClose: (hook: () => Promise<unknown>) => closeHooks.push(hook),
  } as unknown as StateDatabase;
  const ledger = new UsageLedger(database);
  const upserts = () => statements.filter((s) => s.sql.includes('INSERT INTO token_usage'));
  const reads = () => statements.filter((s) => s.sql.trimStart().startsWith('SELECT'));
  const close = () => Promise.all(closeHooks.map((hook) => hook()));
  return { ledger, statements, upserts, reads, close };
}

const entry = (fields: Partial<UsageEntry> = {}): UsageEntry => ({
  tenantId: 'acme',
  day: '2026-01-02',
  agent: 'default',
  model: 'm',
  ...fields,
});

/** The rows of an upsert, 8 values each: tenant, day, agent, model, prompt, completion, calls, runs. */
const rows = (params: unknown[]) =>
  Array.from({ length: params.length / 8 }, (_, i) => params.slice(i * 8, i * 8 + 8));

describe('UsageLedger', () => {
  it("adds a run's count to its first call's increment: one row, one statement", async () => {
    const { ledger, upserts } = setUp();
    ledger.add(entry({ runs: 1 }));
    await ledger.record(entry({ promptTokens: 3, completionTokens: 4, calls: 1 }));
    expect(upserts()).toHaveLength(1);
    expect(rows(upserts()[0].params)).toEqual([['acme', '2026-01-02', 'default', 'm', 3, 4, 1, 1]]);
  });

  it('writes the rows of several runs and tenants in one statement', async () => {
    const { ledger, upserts } = setUp();
    ledger.add(entry({ runs: 1 }));
    ledger.add(entry({ tenantId: 'beta', runs: 1 }));
    ledger.add(entry({ model: 'other', calls: 1, promptTokens: 1 }));
    ledger.add(entry({ runs: 1 }));
    await ledger.record(entry({ calls: 2, completionTokens: 5 }));
    expect(upserts()).toHaveLength(1);
    expect(rows(upserts()[0].params)).toEqual([
      ['acme', '2026-01-02', 'default', 'm', 0, 5, 2, 2],
      ['beta', '2026-01-02', 'default', 'm', 0, 0, 0, 1],
      ['acme', '2026-01-02', 'default', 'other', 1, 0, 1, 0],
    ]);
  });

  it("writes what it holds of a tenant before that tenant's usage is read, and only then", async () => {
    const { ledger, statements, upserts, reads } = setUp();
    await ledger.spent('acme', '2026-01-01', '2026-01-02');
    expect(statements).toHaveLength(1); // nothing held: the read only
    ledger.add(entry({ runs: 1 }));
    await ledger.sums('beta', '2026-01-01', '2026-01-02', 'day', 10);
    expect(upserts()).toHaveLength(0); // another tenant's read does not wait for it
    await ledger.spent('acme', '2026-01-01', '2026-01-02');
    expect(
      statements.map((s) => (s.sql.includes('INSERT INTO token_usage') ? 'upsert' : 'read')),
    ).toEqual(['read', 'read', 'upsert', 'read']);
    await ledger.spent('acme', '2026-01-01', '2026-01-02');
    expect(upserts()).toHaveLength(1);
    expect(reads()).toHaveLength(4);
  });

  it('writes what waits when the process shuts down', async () => {
    const { ledger, upserts, close } = setUp();
    ledger.add(entry({ runs: 1 }));
    await close();
    expect(upserts()).toHaveLength(1);
  });
});
