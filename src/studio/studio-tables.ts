import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  ENTRY_WRITE_VALUE_COUNT,
  entryWriteValues,
  insertedRowsText,
} from '../platform/state/entry-write.js';
import { ShapedTexts } from '../platform/state/shaped-texts.js';
import { type SqlDialect, sqlDialect } from '../platform/state/sql-dialect.js';
import { StateDatabase } from '../platform/state/state-database.service.js';
import type { EntryWrite } from '../platform/state/state-store.js';
import { TERMINAL_STATUSES } from '../runs/record/run-record.js';
import { STATUS_COUNT, emptyCounts } from './studio-counts.js';
import type { StudioLoop, StudioSession, StudioSnapshot } from './studio-records.js';
import type { LoopUpdate, SessionUpdate } from './studio.store.js';

/**
 * A write the state studio store has queued; with `onlyIf`, one to make only if that write
 * holds (a settled run's loop and session go with its settled record).
 */
export type StudioWrite = (
  | { kind: 'loop'; update: LoopUpdate; updatedMs: number }
  /** `runs`: how many runs of the session ended since the row was last written. */
  | { kind: 'session'; update: SessionUpdate; runs: number }
) & { onlyIf?: EntryWrite };

type LoopWrite = Extract<StudioWrite, { kind: 'loop' }>;
type SessionWrite = Extract<StudioWrite, { kind: 'session' }>;

/** The format of `record` this version writes (a LoopUpdate, or a SessionUpdate without `id`). */
const FORMAT = 1;

/** A settled loop is final: a late write from a replica that lost the run never reopens it. */
const TERMINAL = [...TERMINAL_STATUSES].map((status) => `'${status}'`).join(', ');

/** The writes of `batch` made only if a write holds, by that write (in order of first use). */
function byCondition(batch: StudioWrite[]): Map<EntryWrite, StudioWrite[]> {
  const groups = new Map<EntryWrite, StudioWrite[]>();
  for (const write of batch) {
    if (!write.onlyIf) continue;
    const group = groups.get(write.onlyIf);
    if (group) group.push(write);
    else groups.set(write.onlyIf, [write]);
  }
  return groups;
}

const msOf = (iso: string | null): number => {
  const ms = iso === null ? NaN : Date.parse(iso);
  return Number.isFinite(ms) ? ms : Date.now();
};

/** A loop's row, in the order of upsertLoopsText's columns. */
function loopValues({ update, updatedMs }: LoopWrite): unknown[] {
  return [
    update.tenant_id,
    update.run_id,
    randomUUID(),
    update.status,
    msOf(update.started_at),
    updatedMs,
    FORMAT,
    JSON.stringify(update),
  ];
}
/** studio_loops's columns, as loopValues gives them. */
const LOOP_COLUMNS = [
  'tenant_id',
  'run_id',
  'id',
  'status',
  'started_ms',
  'updated_ms',
  'format',
  'record',
];

/** A session's row, in the order of upsertSessionsText's columns. */
function sessionValues({ update, runs }: SessionWrite): unknown[] {
  const { id, ...fields } = update;
  return [update.tenant_id, id, runs, msOf(update.updated_at), FORMAT, JSON.stringify(fields)];
}
/** studio_sessions's columns, as sessionValues gives them. */
const SESSION_COLUMNS = ['tenant_id', 'session_id', 'runs', 'updated_ms', 'format', 'record'];

/** Newest first: loops by the start of their run, sessions by the end of their latest run. */
const LOOP_ORDER = 'started_ms DESC, run_id DESC';
const SESSION_ORDER = 'updated_ms DESC, session_id DESC';

/**
 * The studio's tables in the state backend (`studio_loops`, `studio_sessions`): batched upserts
 * (single statements: a loop replaces the row unless the row is settled; a session adds to
 * `runs` and takes the newer run), the snapshot with its counts computed in SQL, and the
 * bounded deletes of retention.
 */
@Injectable()
export class StudioTables {
  private readonly dialect: SqlDialect;
  private readonly param: (n: number) => string;
  private readonly postgres: boolean;

  constructor(private readonly database: StateDatabase) {
    const dialect = sqlDialect(database.backend);
    this.dialect = dialect;
    this.param = (n) => dialect.param(n);
    this.postgres = database.backend === 'postgres';
  }

  /**
   * Writes a batch: its loops, then its sessions; one statement on PostgreSQL (the loops' upsert
   * in a WITH of the sessions' one), two on sqlite; then the writes made only if a write holds,
   * the loop and session of one settled run likewise together. All are asked for at once (one
   * statement group). A plain and a conditioned write of one run's loop stay two statements:
   * PostgreSQL does not say which of two changes to one row in one statement wins.
   */
  async write(batch: StudioWrite[]): Promise<void> {
    const statements: Array<Promise<unknown>> = [];
    const upsert = (writes: StudioWrite[], onlyIf?: EntryWrite) => {
      const loops = writes.flatMap((write) => (write.kind === 'loop' ? [loopValues(write)] : []));
      const sessions = writes.flatMap((write) =>
        write.kind === 'session' ? [sessionValues(write)] : [],
      );
      const condition = onlyIf ? entryWriteValues(this.dialect, onlyIf) : [];
      const send = (loopRows: number, sessionRows: number, params: unknown[]) => {
        const text = this.upsertTexts.of(loopRows, sessionRows, onlyIf ? 1 : 0);
        statements.push(this.database.query(text, params));
      };
      if (this.postgres && loops.length > 0 && sessions.length > 0) {
        const params = [...loops.flat(), ...condition, ...sessions.flat(), ...condition];
        send(loops.length, sessions.length, params);
        return;
      }
      if (loops.length > 0) send(loops.length, 0, [...loops.flat(), ...condition]);
      if (sessions.length > 0) send(0, sessions.length, [...sessions.flat(), ...condition]);
    };
    upsert(batch.filter((write) => !write.onlyIf));
    for (const [onlyIf, writes] of byCondition(batch)) {
      // A row written only with a write is one row of its statement.
      const loops = writes.filter((write) => write.kind === 'loop').length;
      if (loops <= 1 && writes.length - loops <= 1) upsert(writes, onlyIf);
      else for (const write of writes) upsert([write], onlyIf);
    }
    await Promise.all(statements);
  }

  async snapshot(tenantId: string | undefined, limit: number): Promise<StudioSnapshot> {
    const [loops, sessions, counts] = await Promise.all([
      this.select(
        `SELECT id, record FROM studio_loops ${this.where(tenantId, 1)} ORDER BY ${LOOP_ORDER}`,
        tenantId,
        limit,
      ),
      this.select(
        `SELECT session_id, runs, record FROM studio_sessions ${this.where(tenantId, 1)}
          ORDER BY ${SESSION_ORDER}`,
        tenantId,
        limit,
      ),
      this.database.query(
        `SELECT status AS what, COUNT(*) AS n FROM studio_loops ${this.where(tenantId, 1)}
          GROUP BY status
         UNION ALL
         SELECT 'session' AS what, COUNT(*) AS n FROM studio_sessions ${this.where(tenantId, 2)}`,
        tenantId === undefined ? [] : [tenantId, tenantId],
      ),
    ]);
    const totals = emptyCounts();
    for (const row of counts.records as Array<{ what: string; n: number | string }>) {
      const n = Number(row.n);
      if (row.what === 'session') {
        totals.sessions += n;
        continue;
      }
      totals.loops += n;
      const counted = STATUS_COUNT[row.what as StudioLoop['status']];
      if (counted) totals[counted] += n;
    }
    return {
      sessions: (
        sessions as Array<{ session_id: string; runs: number | string; record: string }>
      ).map((row) => ({
        id: row.session_id,
        type: 'session',
        ...(JSON.parse(row.record) as Omit<StudioSession, 'id' | 'type' | 'runs'>),
        runs: Number(row.runs),
      })),
      loops: (loops as Array<{ id: string; record: string }>).map((row) => ({
        id: row.id,
        type: 'loop',
        ...(JSON.parse(row.record) as LoopUpdate),
      })),
      counts: totals,
    };
  }

  /** Deletes up to `limit` loops and as many sessions not written since `cutoffMs`. */
  async pruneOlderThan(cutoffMs: number, limit: number): Promise<number> {
    const p = this.param;
    const loops = await this.database.query(
      `DELETE FROM studio_loops WHERE (tenant_id, run_id) IN (
         SELECT tenant_id, run_id FROM studio_loops WHERE updated_ms < ${p(1)} LIMIT ${p(2)})`,
      [cutoffMs, limit],
    );
    const sessions = await this.database.query(
      `DELETE FROM studio_sessions WHERE (tenant_id, session_id) IN (
         SELECT tenant_id, session_id FROM studio_sessions WHERE updated_ms < ${p(1)} LIMIT ${p(2)})`,
      [cutoffMs, limit],
    );
    return (loops.affected ?? 0) + (sessions.affected ?? 0);
  }

  /**
   * Keeps the newest `keep` settled loops and `keep` sessions of up to `tenants` tenants that
   * hold more (running and paused loops are never counted out); answers how many rows went.
   */
  async pruneBeyond(keep: number, tenants: number): Promise<number> {
    const p = this.param;
    let removed = 0;
    const settled = `status IN (${TERMINAL})`;
    const crowdedLoops = await this.database.query(
      `SELECT tenant_id FROM studio_loops WHERE ${settled}
        GROUP BY tenant_id HAVING COUNT(*) > ${p(1)} LIMIT ${p(2)}`,
      [keep, tenants],
    );
    for (const { tenant_id: tenant } of crowdedLoops.records as Array<{ tenant_id: string }>) {
      const cut = await this.database.query(
        `SELECT started_ms AS at, run_id AS id FROM studio_loops
          WHERE tenant_id = ${p(1)} AND ${settled}
          ORDER BY ${LOOP_ORDER} LIMIT 1 OFFSET ${p(2)}`,
        [tenant, keep],
      );
      const first = cut.records[0] as { at: number | string; id: string } | undefined;
      if (!first) continue;
      const deleted = await this.database.query(
        `DELETE FROM studio_loops WHERE tenant_id = ${p(1)} AND ${settled}
           AND (started_ms < ${p(2)} OR (started_ms = ${p(3)} AND run_id <= ${p(4)}))`,
        [tenant, Number(first.at), Number(first.at), first.id],
      );
      removed += deleted.affected ?? 0;
    }
    const crowdedSessions = await this.database.query(
      `SELECT tenant_id FROM studio_sessions GROUP BY tenant_id HAVING COUNT(*) > ${p(1)}
        LIMIT ${p(2)}`,
      [keep, tenants],
    );
    for (const { tenant_id: tenant } of crowdedSessions.records as Array<{ tenant_id: string }>) {
      const cut = await this.database.query(
        `SELECT updated_ms AS at, session_id AS id FROM studio_sessions WHERE tenant_id = ${p(1)}
          ORDER BY ${SESSION_ORDER} LIMIT 1 OFFSET ${p(2)}`,
        [tenant, keep],
      );
      const first = cut.records[0] as { at: number | string; id: string } | undefined;
      if (!first) continue;
      const deleted = await this.database.query(
        `DELETE FROM studio_sessions WHERE tenant_id = ${p(1)}
           AND (updated_ms < ${p(2)} OR (updated_ms = ${p(3)} AND session_id <= ${p(4)}))`,
        [tenant, Number(first.at), Number(first.at), first.id],
      );
      removed += deleted.affected ?? 0;
    }
    return removed;
  }

  private where(tenantId: string | undefined, n: number): string {
    return tenantId === undefined ? '' : `WHERE tenant_id = ${this.param(n)}`;
  }

  /** `text` with its tenant parameter (when it has one) and a LIMIT after it. */
  private async select(text: string, tenantId: string | undefined, limit: number) {
    const params = tenantId === undefined ? [limit] : [tenantId, limit];
    const result = await this.database.query(`${text} LIMIT ${this.param(params.length)}`, params);
    return result.records as unknown[];
  }

  /**
   * The upserts' texts by shape: loops, sessions, 1 if made only if a write holds (else 0).
   * Loops and sessions together (PostgreSQL only) are one statement, the loops' upsert in a WITH.
   */
  private readonly upsertTexts = new ShapedTexts((loops, sessions, conditioned) => {
    const condition = conditioned === 1;
    if (sessions === 0) return this.upsertLoopsText(loops, 1, condition);
    if (loops === 0) return this.upsertSessionsText(sessions, 1, condition);
    const after = loops * LOOP_COLUMNS.length + (condition ? ENTRY_WRITE_VALUE_COUNT : 0) + 1;
    return `WITH loops AS (${this.upsertLoopsText(loops, 1, condition)}) ${this.upsertSessionsText(sessions, after, condition)}`;
  });

  /**
   * The upsert of `rows` loops (loopValues), placeholders from `first`; `conditioned` (one
   * loop): made only if a write holds.
   */
  private upsertLoopsText(rows: number, first: number, conditioned: boolean): string {
    const values = insertedRowsText(this.dialect, first, {
      rows,
      columns: LOOP_COLUMNS.length,
      conditioned,
    });
    return `INSERT INTO studio_loops (${LOOP_COLUMNS.join(', ')})
       ${values}
       ON CONFLICT (tenant_id, run_id) DO UPDATE SET
         status = excluded.status, started_ms = excluded.started_ms,
         updated_ms = excluded.updated_ms, format = excluded.format, record = excluded.record
       WHERE studio_loops.status NOT IN (${TERMINAL})`;
  }

  /** The upsert of `rows` sessions (sessionValues), as upsertLoopsText. */
  private upsertSessionsText(rows: number, first: number, conditioned: boolean): string {
    const values = insertedRowsText(this.dialect, first, {
      rows,
      columns: SESSION_COLUMNS.length,
      conditioned,
    });
    // Two runs of a session that end on two replicas may arrive in either order: the later run wins.
    const newer = 'excluded.updated_ms >= studio_sessions.updated_ms';
    const pick = (column: string) =>
      `${column} = CASE WHEN ${newer} THEN excluded.${column} ELSE studio_sessions.${column} END`;
    return `INSERT INTO studio_sessions (${SESSION_COLUMNS.join(', ')})
       ${values}
       ON CONFLICT (tenant_id, session_id) DO UPDATE SET
         runs = studio_sessions.runs + excluded.runs,
         ${pick('format')}, ${pick('record')}, ${pick('updated_ms')}`;
  }
}
