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
 * `onlyIf` (one row) `SELECT … [from] WHERE` that write holds, so that the row is written only
 * with it (`from`: a FROM clause the row is selected from, such as one that must be read first).
 */
export function insertedRows(
  rows: unknown[][],
  params: unknown[],
  dialect: SqlDialect,
  onlyIf?: EntryWrite,
  from = '',
): string {
  const placeholders = rows.map((row) =>
    row.map((value) => dialect.param(params.push(value))).join(', '),
  );
  if (!onlyIf) return `VALUES ${placeholders.map((row) => `(${row})`).join(', ')}`;
  if (rows.length !== 1) throw new RangeError('a row written only with a write is one row');
  const source = from === '' ? '' : `${from} `;
  return `SELECT ${placeholders[0]} ${source}WHERE ${entryWriteHolds(onlyIf, params, dialect)}`;
}
