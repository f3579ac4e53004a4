import { Injectable } from '@nestjs/common';
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

function statements(d: SqlDialect) {
  const q = sql(d);
  return {
    // One statement on either database: concurrent calls of one tenant add up, never overwrite.
    add: q`INSERT INTO token_usage
      (tenant_id, day, agent, model, prompt_tokens, completion_tokens, calls, runs, updated_at)
      VALUES (${'?'}, ${'?'}, ${'?'}, ${'?'}, ${'?'}, ${'?'}, ${'?'}, ${'?'}, ${'now'})
      ON CONFLICT (tenant_id, day, agent, model) DO UPDATE SET
        prompt_tokens = token_usage.prompt_tokens + excluded.prompt_tokens,
        completion_tokens = token_usage.completion_tokens + excluded.completion_tokens,
        calls = token_usage.calls + excluded.calls,
        runs = token_usage.runs + excluded.runs,
        updated_at = excluded.updated_at`,
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
 * model, the prompt and completion tokens, model calls and runs. Rows only grow, each by one
 * atomic upsert; reads sum a range of days of one tenant.
 */
@Injectable()
export class UsageLedger {
  private readonly sql: ReturnType<typeof statements>;

  constructor(private readonly database: StateDatabase) {
    this.sql = statements(sqlDialect(database.backend));
  }

  async add(entry: UsageEntry): Promise<void> {
    await this.database.query(this.sql.add, [
      entry.tenantId,
      entry.day,
      entry.agent,
      entry.model,
      entry.promptTokens ?? 0,
      entry.completionTokens ?? 0,
      entry.calls ?? 0,
      entry.runs ?? 0,
    ]);
  }

  /** Tokens (prompt + completion) the tenant spent on `today`, and from `since` to `today`. */
  async spent(tenantId: string, since: string, today: string): Promise<RecentSpend> {
    const result = await this.database.query(this.sql.spent, [today, tenantId, since, today]);
    const row = result.records[0] as { today: unknown; period: unknown } | undefined;
    return { today: Number(row?.today ?? 0), since: Number(row?.period ?? 0) };
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
}
