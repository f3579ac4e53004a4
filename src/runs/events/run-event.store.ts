import { Injectable } from '@nestjs/common';
import {
  ENTRY_WRITE_VALUE_COUNT,
  entryWriteCondition,
  entryWriteValues,
} from '../../platform/state/entry-write.js';
import { ShapedTexts } from '../../platform/state/shaped-texts.js';
import type { EntryWrite } from '../../platform/state/state-store.js';
import { type SqlDialect, sqlDialect } from '../../platform/state/sql-dialect.js';
import { StateDatabase } from '../../platform/state/state-database.service.js';
import { type StateNotice, StateNotifications } from '../../platform/state/state-notifications.js';
import type { NewRunEvent, RunEvent, RunEventData, RunEventType } from './run-event.js';

/** The channel a PostgreSQL append notifies: `[tenant, run, last id]` as JSON. */
export const RUN_EVENTS_CHANNEL = 'svc_run_events';

/** Events one statement writes at most (parameters stay far below both drivers' limits). */
export const MAX_APPEND_BATCH = 500;

/** Appends that lost the race for an id to another writer of the run are tried again. */
const APPEND_ATTEMPTS = 5;

interface Row {
  seq: number | string;
  type: RunEventType;
  data: string;
  created_at: number | string;
}

function toEvent(row: Row): RunEvent {
  return {
    id: Number(row.seq),
    type: row.type,
    at: new Date(Number(row.created_at)).toISOString(),
    data: JSON.parse(row.data) as RunEventData,
  };
}

function isDuplicateKey(error: unknown): boolean {
  const code =
    (error as { driverError?: { code?: unknown } }).driverError?.code ??
    (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * The run event log in the state backend (table `run_events`). An append numbers its events
 * after the run's last one in the same statement, so the ids of a run increase in the order
 * they were committed and a reader that remembers the last id it saw misses nothing; two
 * writers of one run (an owner that lost its lease, and the one that took over) cannot both
 * take an id, and the loser tries again. On PostgreSQL the same statement notifies
 * RUN_EVENTS_CHANNEL, so other replicas' streams wake without polling, and sends the other
 * notices the append announces (an MCP document update of the run): no round trip of their own.
 */
@Injectable()
export class RunEventStore {
  private readonly dialect: SqlDialect;
  private readonly postgres: boolean;
  /** Append texts by shape: events, notices, 1 if conditioned (else 0). */
  private readonly appendTexts = new ShapedTexts((events, notices, conditioned) =>
    this.appendText(events, notices, conditioned === 1),
  );

  constructor(
    private readonly database: StateDatabase,
    private readonly notifications: StateNotifications,
  ) {
    this.dialect = sqlDialect(database.backend);
    this.postgres = database.backend === 'postgres';
  }

  /**
   * Writes `events` (at most MAX_APPEND_BATCH) after the run's last event; answers them numbered.
   * `notices` go out with them, once they are written. With `onlyIf`, they are written only if
   * that write holds when the statement runs; else nothing is, and the answer is empty.
   */
  async append(
    tenantId: string,
    runId: string,
    events: NewRunEvent[],
    notices: readonly StateNotice[] = [],
    onlyIf?: EntryWrite,
  ): Promise<RunEvent[]> {
    if (events.length === 0) return [];
    const { text, params } = this.appendStatement(tenantId, runId, events, notices, onlyIf);
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.database.query(text, params);
        const rows = result.records as Row[];
        if (rows.length === 0) return [];
        const first = Math.min(...rows.map((row) => Number(row.seq)));
        if (!this.postgres) {
          const last = first + events.length - 1;
          this.notifications.sent([
            { channel: RUN_EVENTS_CHANNEL, payload: JSON.stringify([tenantId, runId, last]) },
            ...notices,
          ]);
        }
        return events.map((event, i) => ({
          id: first + i,
          type: event.type,
          at: new Date(event.at).toISOString(),
          data: event.data,
        }));
      } catch (error) {
        if (!isDuplicateKey(error) || attempt >= APPEND_ATTEMPTS) throw error;
      }
    }
  }

  /** The run's events after `afterId`, in order, at most `limit`. */
  async after(
    tenantId: string,
    runId: string,
    afterId: number,
    limit: number,
  ): Promise<RunEvent[]> {
    const p = (n: number) => this.dialect.param(n);
    const result = await this.database.query(
      `SELECT seq, type, data, created_at FROM run_events
        WHERE tenant_id = ${p(1)} AND run_id = ${p(2)} AND seq > ${p(3)}
        ORDER BY seq LIMIT ${p(4)}`,
      [tenantId, runId, afterId, limit],
    );
    return (result.records as Row[]).map(toEvent);
  }

  /** The id of the run's last event (0 when it has none). */
  async lastId(tenantId: string, runId: string): Promise<number> {
    const p = (n: number) => this.dialect.param(n);
    const result = await this.database.query(
      `SELECT MAX(seq) AS seq FROM run_events WHERE tenant_id = ${p(1)} AND run_id = ${p(2)}`,
      [tenantId, runId],
    );
    const row = result.records[0] as { seq: number | string | null } | undefined;
    return Number(row?.seq ?? 0);
  }

  /**
   * Deletes the logs of runs whose last event is older than `ageMs` (a run paused for longer
   * keeps its log while it still changes); answers how many events went.
   */
  async prune(ageMs: number, runs: number): Promise<number> {
    const p = (n: number) => this.dialect.param(n);
    const cutoff = Date.now() - ageMs;
    const result = await this.database.query(
      `DELETE FROM run_events WHERE (tenant_id, run_id) IN (
         SELECT tenant_id, run_id FROM run_events
          WHERE created_at < ${p(1)}
          GROUP BY tenant_id, run_id
         HAVING MAX(created_at) < ${p(2)}
          LIMIT ${p(3)})`,
      [cutoff, cutoff, runs],
    );
    return result.affected ?? 0;
  }

  /**
   * The append statement: its text made once per shape (how many events and notices, whether it
   * is conditioned), its values in the order of their placeholders.
   */
  private appendStatement(
    tenantId: string,
    runId: string,
    events: NewRunEvent[],
    notices: readonly StateNotice[],
    onlyIf: EntryWrite | undefined,
  ) {
    const params: unknown[] = [tenantId, runId, tenantId, runId];
    for (const event of events) params.push(event.type, JSON.stringify(event.data), event.at);
    if (onlyIf) params.push(...entryWriteValues(this.dialect, onlyIf));
    if (this.postgres) {
      for (const notice of notices) params.push(notice.channel, notice.payload);
      params.push(tenantId, runId);
    }
    const text = this.appendTexts.of(
      events.length,
      this.postgres ? notices.length : 0,
      onlyIf ? 1 : 0,
    );
    return { text, params };
  }

  /**
   * The text of an append of `events` events (with `notices` notices on PostgreSQL; `conditioned`:
   * with an entry write's condition). Placeholders are numbered in the order appendStatement
   * gives their values (sqlite's `?` bind in order of appearance, which is the same there).
   */
  private appendText(events: number, notices: number, conditioned: boolean): string {
    let n = 0;
    const p = () => this.dialect.param(++n);
    let text = `INSERT INTO run_events (tenant_id, run_id, seq, type, data, created_at)
      SELECT ${p()}, ${p()}, base.last + v.column1, v.column2, v.column3, v.column4
        FROM (SELECT COALESCE(MAX(seq), 0) AS last FROM run_events
               WHERE tenant_id = ${p()} AND run_id = ${p()}) AS base,
             (VALUES `;
    text += Array.from(
      { length: events },
      (_, i) =>
        `(${i + 1}, CAST(${p()} AS VARCHAR(40)), ` +
        `CAST(${p()} AS TEXT), CAST(${p()} AS BIGINT))`,
    ).join(', ');
    text += `) AS v`;
    if (conditioned) {
      text += `\n      WHERE ${entryWriteCondition(this.dialect, n + 1)}`;
      n += ENTRY_WRITE_VALUE_COUNT;
    }
    text += `\n      RETURNING seq`;
    if (!this.postgres) return text;
    // One round trip: the append and its notifications commit together.
    const others = Array.from(
      { length: notices },
      (_, i) => `, pg_notify(CAST(${p()} AS TEXT), CAST(${p()} AS TEXT)) AS also${i}`,
    ).join('');
    return `WITH ins AS (${text}),
      note AS (SELECT pg_notify('${RUN_EVENTS_CHANNEL}',
                 json_build_array(CAST(${p()} AS TEXT), CAST(${p()} AS TEXT),
                                  MAX(seq))::text) AS sent${others}
                 FROM ins HAVING COUNT(*) > 0)
      SELECT ins.seq FROM ins CROSS JOIN note`;
  }
}
