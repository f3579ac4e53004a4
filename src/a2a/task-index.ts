import { Injectable } from '@nestjs/common';
import { entryWriteValues, insertedRowsText } from '../platform/state/entry-write.js';
import { type SqlDialect, sqlDialect } from '../platform/state/sql-dialect.js';
import { StateDatabase } from '../platform/state/state-database.service.js';
import type { EntryWrite } from '../platform/state/state-store.js';
import type { RunRecord, RunStatus } from '../runs/record/run-record.js';

/** One task of the index: where it sorts. */
export interface IndexedTask {
  taskId: string;
  status: RunStatus;
  /** Epoch ms of the status's timestamp (the task's `status.timestamp`). */
  statusAt: number;
}

/** Where a page starts: after this task in the listing's order. */
export interface TaskCursor {
  statusAt: number;
  taskId: string;
}

export interface TaskQuery {
  tenantId: string;
  agent: string;
  contextId?: string;
  /** Only tasks whose run has one of these statuses (absent: any). */
  statuses?: readonly RunStatus[];
  /** Only tasks whose status changed at or after this (epoch ms). */
  changedSince?: number;
}

interface Row {
  task_id: string;
  status: RunStatus;
  status_at: number | string;
}

/** The epoch ms a run's task status carries (toTask's `status.timestamp`). */
export const statusAtOf = (run: Pick<RunRecord, 'ended_at' | 'started_at'>): number =>
  Date.parse(run.ended_at ?? run.started_at);

/** What a task's row is made of: its run. */
export type IndexedRun = Pick<
  RunRecord,
  'tenant_id' | 'run_id' | 'agent' | 'session_id' | 'status' | 'ended_at' | 'started_at'
>;

/** How many values a task's row takes (upsertText). */
const ROW_VALUES = 7;

/**
 * A task's row, inserted or moved to the run's status, unless it holds a later one (two
 * changes of one run may be written out of order); `conditioned`: only if an entry write
 * holds, its values after the row's (entry-write.ts).
 */
function upsertText(dialect: SqlDialect, conditioned: boolean): string {
  const rows = insertedRowsText(dialect, 1, { rows: 1, columns: ROW_VALUES, conditioned });
  return `INSERT INTO a2a_tasks (tenant_id, task_id, agent, context_id, status, status_at, created_at)
    ${rows}
    ON CONFLICT (tenant_id, task_id) DO UPDATE SET status = excluded.status, status_at = excluded.status_at
    WHERE a2a_tasks.status_at <= excluded.status_at`;
}

/**
 * The tasks a tenant's agents were sent over A2A, for ListTasks (table `a2a_tasks`): a row per
 * task written once its run is recorded, kept in step with the run's status (A2ATaskUpkeep),
 * read a page at a time in the order A2A asks for (newest status first, cursor-paged) and
 * deleted with the run event log's retention. Every replica reads the same rows.
 */
@Injectable()
export class A2ATaskIndex {
  private readonly dialect: SqlDialect;
  private readonly upsertRow: string;
  private readonly upsertRowIf: string;

  constructor(private readonly database: StateDatabase) {
    this.dialect = sqlDialect(database.backend);
    this.upsertRow = upsertText(this.dialect, false);
    this.upsertRowIf = upsertText(this.dialect, true);
  }

  /**
   * The task's row takes the run's status, whether or not it has a row yet, unless the row
   * already holds a later one. With `onlyIf`, only if that write holds: a settled run's row goes
   * with its settled record, in its transaction. A run that is no task must not be given one.
   */
  async upsert(run: IndexedRun, onlyIf?: EntryWrite): Promise<void> {
    const row = [
      run.tenant_id,
      run.run_id,
      run.agent,
      run.session_id,
      run.status,
      statusAtOf(run),
      Date.now(),
    ];
    await (onlyIf
      ? this.database.query(this.upsertRowIf, [...row, ...entryWriteValues(this.dialect, onlyIf)])
      : this.database.query(this.upsertRow, row));
  }

  async remove(tenantId: string, taskId: string): Promise<void> {
    const p = (n: number) => this.dialect.param(n);
    await this.database.query(
      `DELETE FROM a2a_tasks WHERE tenant_id = ${p(1)} AND task_id = ${p(2)}`,
      [tenantId, taskId],
    );
  }

  /** At most `limit` tasks of the query after `cursor`, newest status first. */
  async page(query: TaskQuery, cursor: TaskCursor | null, limit: number): Promise<IndexedTask[]> {
    const { where, params } = this.filter(query);
    if (cursor) {
      const n = params.length;
      where.push(
        `(status_at < ${this.dialect.param(n + 1)} OR (status_at = ${this.dialect.param(n + 2)} AND task_id < ${this.dialect.param(n + 3)}))`,
      );
      params.push(cursor.statusAt, cursor.statusAt, cursor.taskId);
    }
    params.push(limit);
    const result = await this.database.query(
      `SELECT task_id, status, status_at FROM a2a_tasks WHERE ${where.join(' AND ')}
        ORDER BY status_at DESC, task_id DESC LIMIT ${this.dialect.param(params.length)}`,
      params,
    );
    return (result.records as Row[]).map((row) => ({
      taskId: row.task_id,
      status: row.status,
      statusAt: Number(row.status_at),
    }));
  }

  /** How many tasks the query matches. */
  async count(query: TaskQuery): Promise<number> {
    const { where, params } = this.filter(query);
    const result = await this.database.query(
      `SELECT COUNT(*) AS n FROM a2a_tasks WHERE ${where.join(' AND ')}`,
      params,
    );
    return Number((result.records[0] as { n: number | string } | undefined)?.n ?? 0);
  }

  /** Deletes at most `limit` rows whose status is older than `ageMs`; answers how many. */
  async prune(ageMs: number, limit: number): Promise<number> {
    const p = (n: number) => this.dialect.param(n);
    const result = await this.database.query(
      `DELETE FROM a2a_tasks WHERE (tenant_id, task_id) IN (
         SELECT tenant_id, task_id FROM a2a_tasks WHERE status_at < ${p(1)} LIMIT ${p(2)})`,
      [Date.now() - ageMs, limit],
    );
    return result.affected ?? 0;
  }

  private filter(query: TaskQuery): { where: string[]; params: unknown[] } {
    const params: unknown[] = [query.tenantId, query.agent];
    const where = [`tenant_id = ${this.dialect.param(1)}`, `agent = ${this.dialect.param(2)}`];
    const add = (clause: (placeholder: string) => string, value: unknown) => {
      params.push(value);
      where.push(clause(this.dialect.param(params.length)));
    };
    if (query.contextId) add((x) => `context_id = ${x}`, query.contextId);
    if (query.changedSince !== undefined) add((x) => `status_at >= ${x}`, query.changedSince);
    if (query.statuses) {
      if (query.statuses.length === 0) where.push('1 = 0');
      const first = params.length + 1;
      params.push(...query.statuses);
      if (query.statuses.length > 0) {
        const list = query.statuses.map((_, i) => this.dialect.param(first + i)).join(', ');
        where.push(`status IN (${list})`);
      }
    }
    return { where, params };
  }
}
