import { Injectable } from '@nestjs/common';
import { entryWriteValues, insertedRowsText } from '../state/entry-write.js';
import { ShapedTexts } from '../state/shaped-texts.js';
import { type SqlDialect, sqlDialect } from '../state/sql-dialect.js';
import type { EntryWrite, JsonValue } from '../state/state-store.js';
import { StateDatabase } from '../state/state-database.service.js';
import { storableDiagnostic } from '../state/stored-text.js';
import type { AuditKind, RecordedAuditEvent } from './audit-event.js';
import { runIdOf } from './audit-filter.js';
import type { AuditQuery } from './audit-sink.js';

/**
 * An event as `record` took it: everything but the id, which the table gives; with `onlyIf`,
 * one to write only if that write holds (AuditSink.recordWith).
 */
export type PendingAuditEvent = Omit<RecordedAuditEvent, 'id'> & { onlyIf?: EntryWrite };

/** Rows one insert writes at most (6 parameters each, far below both drivers' limits). */
export const MAX_AUDIT_INSERT = 500;

/** audit_events's columns, as columnsOf gives them. */
const COLUMNS = ['tenant_id', 'kind', 'actor', 'run_id', 'at', 'details'];
const INSERT = `INSERT INTO audit_events (${COLUMNS.join(', ')})`;

/** Column sizes of audit_events; longer values are cut rather than refused (recording never fails). */
const COLUMN = { tenant: 128, kind: 64, actor: 256, run: 256 } as const;

interface Row {
  id: number | string;
  tenant_id: string | null;
  kind: string;
  actor: string | null;
  at: number | string;
  details: string;
}

/** A value fit for a bounded varchar on both backends. */
function column(value: string | undefined, max: number): string | null {
  return value === undefined ? null : storableDiagnostic(value.slice(0, max));
}

type ConditionedEvent = PendingAuditEvent & { onlyIf: EntryWrite };

/** The values of an event's columns, in INSERT's order. */
function columnsOf(event: PendingAuditEvent): unknown[] {
  return [
    column(event.tenantId, COLUMN.tenant),
    column(event.kind, COLUMN.kind),
    column(event.actor, COLUMN.actor),
    column(runIdOf(event.details), COLUMN.run),
    event.at,
    JSON.stringify(event.details),
  ];
}

function toEvent(row: Row): RecordedAuditEvent {
  return {
    id: Number(row.id),
    kind: row.kind as AuditKind,
    ...(row.tenant_id !== null ? { tenantId: row.tenant_id } : {}),
    ...(row.actor !== null ? { actor: row.actor } : {}),
    at: Number(row.at),
    details: JSON.parse(row.details) as Record<string, JsonValue>,
  };
}

/**
 * The audit trail in the state backend (table `audit_events`): ids in insertion order, so
 * newest first is `id` descending and a page ends where the next begins (`id < ?`), however
 * many events arrive meanwhile. `details` is JSON text, which escapes NUL and lone surrogates,
 * so it comes back exactly on both backends.
 */
@Injectable()
export class AuditEventStore {
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
   * Writes `events` (at most MAX_AUDIT_INSERT) in order: one statement, and one more for each
   * event with a condition, all asked for at once (one statement group). On PostgreSQL the first
   * event with a condition goes in the plain rows' statement.
   */
  async insert(events: PendingAuditEvent[]): Promise<void> {
    const statements: Array<Promise<unknown>> = [];
    const query = (plain: PendingAuditEvent[], conditioned?: ConditionedEvent) => {
      const params = plain.flatMap(columnsOf);
      if (conditioned)
        params.push(
          ...columnsOf(conditioned),
          ...entryWriteValues(this.dialect, conditioned.onlyIf),
        );
      const text = this.insertTexts.of(plain.length, conditioned ? 1 : 0);
      statements.push(this.database.query(text, params));
    };
    const plain = events.filter((event) => !event.onlyIf);
    let conditioned = events.filter((event): event is ConditionedEvent => !!event.onlyIf);
    if (this.postgres && plain.length > 0 && conditioned.length > 0) {
      query(plain, conditioned[0]);
      conditioned = conditioned.slice(1);
    } else if (plain.length > 0) {
      query(plain);
    }
    for (const event of conditioned) query([], event);
    await Promise.all(statements);
  }

  /**
   * The texts of insert by shape: plain rows, 1 with an event written only if its write holds
   * (else 0). Both kinds (PostgreSQL only) are one statement, in that order: the conditioned row reads
   * the plain rows' insert whole (a WITH's statement runs as its rows are read) before it is
   * made, so its id comes after theirs. When its write does not hold, the plain rows are written
   * all the same.
   */
  private readonly insertTexts = new ShapedTexts((plain, conditioned) => {
    const rows = (first: number) =>
      insertedRowsText(this.dialect, first, { rows: plain, columns: COLUMNS.length });
    const row = (first: number, from?: string) =>
      insertedRowsText(this.dialect, first, {
        rows: 1,
        columns: COLUMNS.length,
        conditioned: true,
        from,
      });
    if (conditioned === 0) return `${INSERT} ${rows(1)}`;
    if (plain === 0) return `${INSERT} ${row(1)}`;
    const after = row(plain * COLUMNS.length + 1, 'FROM (SELECT COUNT(*) FROM plain) AS written');
    return `WITH plain AS (${INSERT} ${rows(1)} RETURNING 1) ${INSERT} ${after}`;
  });

  /** The query's events, newest first, at most `limit`. */
  async list(query: AuditQuery & { limit: number }): Promise<RecordedAuditEvent[]> {
    const params: unknown[] = [];
    const p = (value: unknown) => {
      params.push(value);
      return this.param(params.length);
    };
    const where: string[] = [];
    if (query.tenantId !== undefined) where.push(`tenant_id = ${p(query.tenantId)}`);
    if (query.runId !== undefined) where.push(`run_id = ${p(query.runId)}`);
    if (query.kind !== undefined) where.push(`kind = ${p(query.kind)}`);
    if (query.kindPrefix !== undefined) {
      where.push(`SUBSTR(kind, 1, ${query.kindPrefix.length}) = ${p(query.kindPrefix)}`);
    }
    if (query.actor !== undefined) where.push(`actor = ${p(query.actor)}`);
    if (query.since !== undefined) where.push(`at >= ${p(query.since)}`);
    if (query.until !== undefined) where.push(`at < ${p(query.until)}`);
    if (query.beforeId !== undefined) where.push(`id < ${p(query.beforeId)}`);
    const result = await this.database.query(
      `SELECT id, tenant_id, kind, actor, at, details FROM audit_events
       ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY id DESC LIMIT ${p(query.limit)}`,
      params,
    );
    return (result.records as Row[]).map(toEvent);
  }

  /** Deletes up to `limit` of the oldest events recorded before `cutoffMs`; answers how many. */
  async prune(cutoffMs: number, limit: number): Promise<number> {
    const p = this.param;
    const result = await this.database.query(
      `DELETE FROM audit_events WHERE id IN (
         SELECT id FROM audit_events WHERE at < ${p(1)} ORDER BY id LIMIT ${p(2)})`,
      [cutoffMs, limit],
    );
    return result.affected ?? 0;
  }
}
