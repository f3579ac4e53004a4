import { Injectable, Logger } from '@nestjs/common';
import { BackgroundWriter } from '../platform/state/background-writer.js';
import { ShapedTexts } from '../platform/state/shaped-texts.js';
import { type SqlDialect, sql, sqlDialect } from '../platform/state/sql-dialect.js';
import { StateDatabase } from '../platform/state/state-database.service.js';

/** What to add to one row of the ledger: a model call's tokens, or a run that started. */
export interface UsageEntry {
  tenantId: string;
  /** UTC `YYYY-MM-DD`. */
  day: string;
  agent: string;
  model: string;
  promptTokens?: number;
  completionTokens?: number;
  calls?: number;
  runs?: number;
}

/** Sums of a group of ledger rows. */
export interface UsageSums {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  calls: number;
  runs: number;
}

export type UsageGroup = 'day' | 'model' | 'agent';

interface SumRow {
  name: string;
  prompt_tokens: number | string | null;
  completion_tokens: number | string | null;
  calls: number | string | null;
  runs: number | string | null;
}

/** Rows one upsert writes at most (8 parameters each, far below both drivers' limits). */
const MAX_BATCH = 500;
/** Ledger rows with increments waiting at most (while the backend is away); beyond, dropped. */
const MAX_PENDING = 20_000;
/**
 * How long an increment waits for others to share its statement: what runs that start in the
 * same moment add (a run's start is counted here, and written with its first model call).
 */
const GATHER_MS = 50;

/** The row an entry adds to. */
const rowKey = (entry: UsageEntry): string =>
  JSON.stringify([entry.tenantId, entry.day, entry.agent, entry.model]);

/** Two increments of one row as one. */
function merge(older: UsageEntry, newer: UsageEntry): UsageEntry {
  return {
    ...older,
    promptTokens: (older.promptTokens ?? 0) + (newer.promptTokens ?? 0),
    completionTokens: (older.completionTokens ?? 0) + (newer.completionTokens ?? 0),
    calls: (older.calls ?? 0) + (newer.calls ?? 0),
    runs: (older.runs ?? 0) + (newer.runs ?? 0),
  };
}

/**
 * One upsert of `rows` ledger rows (each row once): concurrent writers of one row add up, never
 * overwrite, on either database.
 */
function addStatement(d: SqlDialect, rows: number): string {
  let n = 0;
  const row = () => `(${Array.from({ length: 8 }, () => d.param(++n)).join(', ')}, ${d.nowMs})`;
  return `INSERT INTO token_usage
      (tenant_id, day, agent, model, prompt_tokens, completion_tokens, calls, runs, updated_at)
      VALUES ${Array.from({ length: rows }, row).join(', ')}
      ON CONFLICT (tenant_id, day, agent, model) DO UPDATE SET
        prompt_tokens = token_usage.prompt_tokens + excluded.prompt_tokens,
        completion_tokens = token_usage.completion_tokens + excluded.completion_tokens,
        calls = token_usage.calls + excluded.calls,
        runs = token_usage.runs + excluded.runs,
        updated_at = excluded.updated_at`;
}

function statements(d: SqlDialect) {
  const q = sql(d);
  return {
    // The budget check: a range of the primary key (one tenant, this month's days).
    spent: q`SELECT
        SUM(CASE WHEN day = ${'?'} THEN prompt_tokens + completion_tokens ELSE 0 END) AS today,
        SUM(prompt_tokens + completion_tokens) AS period
      FROM token_usage WHERE tenant_id = ${'?'} AND day >= ${'?'} AND day <= ${'?'}`,
    day: q`SELECT day AS name, SUM(prompt_tokens) AS prompt_tokens,
        SUM(completion_tokens) AS completion_tokens, SUM(calls) AS calls, SUM(runs) AS runs
      FROM token_usage WHERE tenant_id = ${'?'} AND day >= ${'?'} AND day <= ${'?'}
      GROUP BY day ORDER BY day LIMIT ${'?'}`,
    model: q`SELECT model AS name, SUM(prompt_tokens) AS prompt_tokens,
        SUM(completion_tokens) AS completion_tokens, SUM(calls) AS calls, SUM(runs) AS runs
      FROM token_usage WHERE tenant_id = ${'?'} AND day >= ${'?'} AND day <= ${'?'}
      GROUP BY model ORDER BY SUM(prompt_tokens + completion_tokens) DESC, model LIMIT ${'?'}`,
    agent: q`SELECT agent AS name, SUM(prompt_tokens) AS prompt_tokens,
        SUM(completion_tokens) AS completion_tokens, SUM(calls) AS calls, SUM(runs) AS runs
      FROM token_usage WHERE tenant_id = ${'?'} AND day >= ${'?'} AND day <= ${'?'}
      GROUP BY agent ORDER BY SUM(prompt_tokens + completion_tokens) DESC, agent LIMIT ${'?'}`,
  };
}

const count = (value: number | string | null | undefined): number => Number(value ?? 0);

/** What a tenant spent today and since a day (for the budget check). */
export interface RecentSpend {
  today: number;
  since: number;
}

/**
 * The token usage ledger in the state backend (`token_usage`): per tenant, UTC day, agent and
 * model, the prompt and completion tokens, model calls and runs. Rows only grow, by atomic
 * upserts. Increments are gathered in this process first (a BackgroundWriter): those of one row
 * add up while they wait, and one statement writes the rows of every run that added in the same
 * moment (GATHER_MS; at once when someone waits for them, `recordNow`). The writer is closed, so
 * what waits is written, when the process shuts down; a crash loses what waits (see
 * docs/decisions.md). Reads sum a range of days of one tenant and see every increment made on
 * this replica: the budget check adds what waits here to what the ledger answers, the usage
 * report writes what waits for the tenant first.
 */
@Injectable()
export class UsageLedger {
  private readonly dialect: SqlDialect;
  private readonly sql: ReturnType<typeof statements>;
  /** The upsert of a batch, by its number of rows. */
  private readonly addTexts: ShapedTexts;
  private readonly writer: BackgroundWriter<UsageEntry>;

  constructor(private readonly database: StateDatabase) {
    this.dialect = sqlDialect(database.backend);
    this.sql = statements(this.dialect);
    this.addTexts = new ShapedTexts((rows: number) => addStatement(this.dialect, rows));
    this.writer = new BackgroundWriter({
      what: 'token usage increments',
      write: (batch) => this.write(batch),
      logger: new Logger('UsageLedger'),
      maxBatch: MAX_BATCH,
      maxPending: MAX_PENDING,
      gatherMs: GATHER_MS,
      key: rowKey,
      merge,
    });
    // After the HTTP server drained and before the pool closes: what waits is written.
    database.beforeClose(() => this.writer.close());
  }

  /** Adds `entry` to the ledger soon (with whatever else is added in the same moment). */
  add(entry: UsageEntry): void {
    this.writer.add(entry);
  }

  /**
   * Adds `entry`; `recorded` resolves once it has been tried (written, or kept to be written
   * once the backend is back), and the increments that wait share its statement. `sent`: its
   * statement was asked for at once (the writer was free), so a write asked for in the same
   * moment goes in its group, which on either database is one transaction (SqliteStatements,
   * PostgresStatements).
   */
  recordNow(entry: UsageEntry): { sent: boolean; recorded: Promise<void> } {
    this.add(entry);
    const { sent, flushed } = this.writer.flushNow();
    return { sent, recorded: flushed };
  }

  /**
   * Tokens (prompt + completion) the tenant spent on `today`, and from `since` to `today`: what
   * the ledger holds plus what this process has not written yet. Budget checks read this before
   * every new run, so it must not flush the increments of every run it checks (batching would
   * buy a tenant with a budget nothing).
   */
  async spent(tenantId: string, since: string, today: string): Promise<RecentSpend> {
    const read = () => this.database.query(this.sql.spent, [today, tenantId, since, today]);
    const { read: result, waiting } = this.writer.holds((entry) => entry.tenantId === tenantId)
      ? await this.writer.unwritten(read)
      : { read: await read(), waiting: [] };
    const row = result.records[0] as { today: unknown; period: unknown } | undefined;
    const spent = { today: Number(row?.today ?? 0), since: Number(row?.period ?? 0) };
    for (const entry of waiting) {
      if (entry.tenantId !== tenantId || entry.day < since || entry.day > today) continue;
      const tokens = (entry.promptTokens ?? 0) + (entry.completionTokens ?? 0);
      spent.since += tokens;
      if (entry.day === today) spent.today += tokens;
    }
    return spent;
  }

  /**
   * The tenant's usage from `from` to `to` (both included) summed by `group`: days in order,
   * models and agents largest first; at most `limit` groups.
   */
  async sums(
    tenantId: string,
    from: string,
    to: string,
    group: UsageGroup,
    limit: number,
  ): Promise<Array<{ name: string } & UsageSums>> {
    await this.written(tenantId);
    const result = await this.database.query(this.sql[group], [tenantId, from, to, limit]);
    return (result.records as SumRow[]).map((row) => {
      const prompt = count(row.prompt_tokens);
      const completion = count(row.completion_tokens);
      return {
        name: row.name,
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        calls: count(row.calls),
        runs: count(row.runs),
      };
    });
  }

  /** Writes what this process holds for the tenant before it is read. */
  private async written(tenantId: string): Promise<void> {
    if (this.writer.holds((entry) => entry.tenantId === tenantId)) await this.writer.flush();
  }

  private async write(batch: UsageEntry[]): Promise<void> {
    const params = batch.flatMap((entry) => [
      entry.tenantId,
      entry.day,
      entry.agent,
      entry.model,
      entry.promptTokens ?? 0,
      entry.completionTokens ?? 0,
      entry.calls ?? 0,
      entry.runs ?? 0,
    ]);
    await this.database.query(this.addTexts.of(batch.length), params);
  }
}
