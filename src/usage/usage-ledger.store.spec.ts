import { describe, expect, it } from '@jest/globals';
import type { QueryResult } from 'typeorm';
import type { StateDatabase } from '../platform/state/state-database.service.js';
import { type UsageEntry, UsageLedger } from './usage-ledger.store.js';

/** A sqlite-flavoured database that records the statements it is sent. */
function setUp() {
  const statements: Array<{ sql: string; params: unknown[] }> = [];
  const closeHooks: Array<() => Promise<unknown>> = [];
  let row: Record<string, unknown> | undefined;
  let onRead: (() => Promise<unknown>) | undefined;
  const database = {
    backend: 'sqlite',
    query: async (sql: string, params: unknown[] = []) => {
      statements.push({ sql, params });
      if (sql.trimStart().startsWith('SELECT') && onRead) {
        const during = onRead;
        onRead = undefined;
        await during();
      }
      return { records: row ? [row] : [], raw: [] } as unknown as QueryResult;
    },
    beforeClose: (hook: () => Promise<unknown>) => closeHooks.push(hook),
  } as unknown as StateDatabase;
  const ledger = new UsageLedger(database);
  const upserts = () => statements.filter((s) => s.sql.includes('INSERT INTO token_usage'));
  const reads = () => statements.filter((s) => s.sql.trimStart().startsWith('SELECT'));
  const close = () => Promise.all(closeHooks.map((hook) => hook()));
  const answer = (sums: Record<string, unknown>) => (row = sums);
  const duringRead = (work: () => Promise<unknown>) => (onRead = work);
  return { ledger, statements, upserts, reads, close, answer, duringRead };
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
    await ledger.recordNow(entry({ promptTokens: 3, completionTokens: 4, calls: 1 })).recorded;
    expect(upserts()).toHaveLength(1);
    expect(rows(upserts()[0].params)).toEqual([['acme', '2026-01-02', 'default', 'm', 3, 4, 1, 1]]);
  });

  it('writes the rows of several runs and tenants in one statement', async () => {
    const { ledger, upserts } = setUp();
    ledger.add(entry({ runs: 1 }));
    ledger.add(entry({ tenantId: 'beta', runs: 1 }));
    ledger.add(entry({ model: 'other', calls: 1, promptTokens: 1 }));
    ledger.add(entry({ runs: 1 }));
    await ledger.recordNow(entry({ calls: 2, completionTokens: 5 })).recorded;
    expect(upserts()).toHaveLength(1);
    expect(rows(upserts()[0].params)).toEqual([
      ['acme', '2026-01-02', 'default', 'm', 0, 5, 2, 2],
      ['beta', '2026-01-02', 'default', 'm', 0, 0, 0, 1],
      ['acme', '2026-01-02', 'default', 'other', 1, 0, 1, 0],
    ]);
  });

  it("writes what it holds of a tenant before that tenant's usage report, and only then", async () => {
    const { ledger, statements, upserts, reads } = setUp();
    await ledger.sums('acme', '2026-01-01', '2026-01-02', 'day', 10);
    expect(statements).toHaveLength(1); // nothing held: the read only
    ledger.add(entry({ runs: 1 }));
    await ledger.sums('beta', '2026-01-01', '2026-01-02', 'day', 10);
    expect(upserts()).toHaveLength(0); // another tenant's read does not wait for it
    await ledger.sums('acme', '2026-01-01', '2026-01-02', 'day', 10);
    expect(
      statements.map((s) => (s.sql.includes('INSERT INTO token_usage') ? 'upsert' : 'read')),
    ).toEqual(['read', 'read', 'upsert', 'read']);
    await ledger.sums('acme', '2026-01-01', '2026-01-02', 'day', 10);
    expect(upserts()).toHaveLength(1);
    expect(reads()).toHaveLength(4);
  });

  it('answers a budget check with what waits here added, without writing it', async () => {
    const { ledger, upserts, reads, answer } = setUp();
    answer({ today: 100, period: 1000 });
    ledger.add(entry({ day: '2026-01-02', promptTokens: 3, completionTokens: 4 })); // today
    ledger.add(entry({ day: '2026-01-01', promptTokens: 10 })); // earlier this month
    ledger.add(entry({ day: '2025-12-31', promptTokens: 50 })); // before the period
    ledger.add(entry({ tenantId: 'beta', promptTokens: 70 })); // another tenant
    const spent = await ledger.spent('acme', '2026-01-01', '2026-01-02');
    expect(spent).toEqual({ today: 107, since: 1017 });
    expect(upserts()).toHaveLength(0);
    expect(reads()).toHaveLength(1);
  });

  it('reads again when a batch was written while it read, so nothing is counted twice', async () => {
    const { ledger, upserts, reads, answer, duringRead } = setUp();
    answer({ today: 0, period: 0 });
    ledger.add(entry({ promptTokens: 5 }));
    // The first read is under way when the ledger writes the waiting increment.
    duringRead(() => ledger.recordNow(entry({ promptTokens: 1 })).recorded);
    const spent = await ledger.spent('acme', '2026-01-01', '2026-01-02');
    expect(upserts()).toHaveLength(1);
    expect(reads()).toHaveLength(2);
    // The second read answers 0 here (a stand-in): the written increments are the database's.
    expect(spent).toEqual({ today: 0, since: 0 });
  });

  it('writes what waits when the process shuts down', async () => {
    const { ledger, upserts, close } = setUp();
    ledger.add(entry({ runs: 1 }));
    await close();
    expect(upserts()).toHaveLength(1);
  });
});
