import type { SqlDialect } from './sql-dialect.js';
import type { EntryWrite } from './state-store.js';

/**
 * The SQL condition that `write` holds. Its values are appended to `params`, each placeholder
 * made where it appears (sqlite binds in order of appearance).
 */
export function entryWriteHolds(write: EntryWrite, params: unknown[], dialect: SqlDialect): string {
  const p = (value: unknown) => dialect.param(params.push(value));
  const { key } = write;
  return `EXISTS (SELECT 1 FROM state_entries
    WHERE tenant_id = ${p(key.tenantId)} AND session_id = ${p(key.sessionId)}
      AND "key" = ${p(key.key)} AND version = ${p(write.version)}
      AND value = ${p(write.json)})`;
}

/**
 * The rows of an INSERT, their values appended to `params` in order: `VALUES (…), (…)`, or with
 * `onlyIf` (one row) `SELECT … WHERE` that write holds, so that the row is written only with it.
 */
export function insertedRows(
  rows: unknown[][],
  params: unknown[],
  dialect: SqlDialect,
  onlyIf?: EntryWrite,
): string {
  const placeholders = rows.map((row) =>
    row.map((value) => dialect.param(params.push(value))).join(', '),
  );
  if (!onlyIf) return `VALUES ${placeholders.map((row) => `(${row})`).join(', ')}`;
  if (rows.length !== 1) throw new RangeError('a row written only with a write is one row');
  return `SELECT ${placeholders[0]} WHERE ${entryWriteHolds(onlyIf, params, dialect)}`;
}
