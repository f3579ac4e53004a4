import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { ConfigService } from '@nestjs/config';
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { PostgresStatements } from '../../platform/state/postgres-statements.js';
import { SqliteStatements } from '../../platform/state/sqlite-statements.js';
import type { StateDatabase } from '../../platform/state/state-database.service.js';
import { UsageLedger } from '../../usage/usage-ledger.store.js';
import type { StoredRun } from '../record/run-record.js';
import { RunSpending } from './run-spending.js';

const TABLES = [
  `CREATE TABLE token_usage (tenant_id TEXT NOT NULL, day TEXT NOT NULL, agent TEXT NOT NULL,
    model TEXT NOT NULL, prompt_tokens BIGINT NOT NULL, completion_tokens BIGINT NOT NULL,
    calls BIGINT NOT NULL, runs BIGINT NOT NULL, updated_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, day, agent, model))`,
  "CREATE TABLE answers (run_id TEXT PRIMARY KEY, CHECK (run_id <> 'refused'))",
];

const config = {
  get: () => ({ model: 'default-model' }),
} as unknown as ConfigService<GatewayConfig, true>;

const run = (runId: string) =>
  ({ tenant_id: 'acme', agent: 'default', run_id: runId }) as StoredRun;
const USAGE = { prompt_tokens: 10, completion_tokens: 5 };

/**
 * A call's spend and the write that acts on its answer (`answers` here, a checkpoint in a run),
 * on each database: one transaction when the ledger is free, the spend first when it is not.
 */
describe.each(['sqlite', 'postgres'] as const)('RunSpending on %s', (backend) => {
  let execute: (sql: string, params: unknown[]) => Promise<{ records: unknown[] }>;
  let read: (sql: string) => Promise<Array<Record<string, unknown>>>;
  /** Transactions that wrote (sqlite; on PostgreSQL the rows' xmin tells). */
  let commits = 0;
  let close: () => Promise<void>;
  let spending: RunSpending;
  let ledger: UsageLedger;

  beforeAll(async () => {
    if (backend === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'svc-run-spending-'));
      const db = new Database(join(dir, 'state.sqlite'));
      db.pragma('journal_mode = WAL');
      for (const table of TABLES) db.exec(table);
      const statements = new SqliteStatements(db, () => (commits += 1));
      execute = (sql, params) => statements.run(sql, params);
      read = (sql) => Promise.resolve(db.prepare(sql).all() as Array<Record<string, unknown>>);
      close = () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      };
    } else {
      const database: TestDatabase = await createTestDatabase();
      for (const table of TABLES) await database.query(table);
      const pool = new pg.Pool({ connectionString: database.dsn, max: 4, pipeline: true });
      const statements = new PostgresStatements(pool);
      execute = (sql, params) => statements.run(sql, params);
      read = async (sql) => (await pool.query(sql)).rows as Array<Record<string, unknown>>;
      close = async () => {
        await pool.end();
        await database.drop();
      };
    }
    const database = {
      backend,
      query: (sql: string, params: unknown[] = []) => execute(sql, params),
      beforeClose: () => undefined,
    } as unknown as StateDatabase;
    ledger = new UsageLedger(database);
    spending = new RunSpending(ledger, config);
  });

  afterAll(() => close());
  afterEach(() => {
    commits = 0;
  });

  const answer = (runId: string) =>
    execute(
      backend === 'sqlite'
        ? 'INSERT INTO answers (run_id) VALUES (?)'
        : 'INSERT INTO answers (run_id) VALUES ($1)',
      [runId],
    );
  const calls = async () => {
    const [row] = await read(
      "SELECT calls, prompt_tokens FROM token_usage WHERE model = 'default-model'",
    );
    return row ? { calls: Number(row.calls), prompt: Number(row.prompt_tokens) } : null;
  };

  it("writes a call's spend and the write acting on its answer in one transaction", async () => {
    const before = (await calls())?.calls ?? 0;
    const record = run('one');
    await spending.meter(record).spentWith(undefined, USAGE, () => answer('one'));
    expect((await calls())?.calls).toBe(before + 1);
    expect(record.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
    if (backend === 'sqlite') {
      expect(commits).toBe(1);
    } else {
      const [spend] = await read('SELECT xmin::text AS tx FROM token_usage');
      const [acted] = await read("SELECT xmin::text AS tx FROM answers WHERE run_id = 'one'");
      expect(acted.tx).toBe(spend.tx);
    }
  });

  it('lets the write wait for the spend while the ledger writes an earlier batch', async () => {
    const before = (await calls())?.calls ?? 0;
    // A batch under way: the spend cannot join it, so the write waits for the spend's commit.
    ledger.add({ tenantId: 'other', day: '2026-01-02', agent: 'a', model: 'm', runs: 1 });
    const underWay = ledger.recordNow({
      tenantId: 'other',
      day: '2026-01-02',
      agent: 'a',
      model: 'm',
    });
    expect(underWay.sent).toBe(true);
    let seenByTheWrite: number | undefined;
    await spending.meter(run('two')).spentWith(undefined, USAGE, async () => {
      seenByTheWrite = (await calls())?.calls;
      return answer('two');
    });
    expect(seenByTheWrite).toBe(before + 1);
  });

  it("keeps the spend when the write fails, and fails with the write's error", async () => {
    const before = (await calls())?.calls ?? 0;
    await expect(
      spending.meter(run('refused')).spentWith(undefined, USAGE, () => answer('refused')),
    ).rejects.toThrow(/CHECK|check/);
    expect((await calls())?.calls).toBe(before + 1);
  });
});
