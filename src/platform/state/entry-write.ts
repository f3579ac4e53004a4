import type { SqlDialect } from './sql-dialect.js';
import type { EntryWrite } from './state-store.js';

// A statement carries a write's condition as text made once per shape (ShapedTexts) and values
// bound with it: the text's placeholders are numbered from where its values start in the
// statement's parameters (sqlite's `?` bind in order of appearance, which is the same order).

/** The columns entryWriteCondition finds the entry by, then its value (SqlDialect.valueIs). */
const KEY_COLUMNS = ['tenant_id', 'session_id', '"key"', 'version'];

/** How many values entryWriteValues gives. */
export const ENTRY_WRITE_VALUE_COUNT = KEY_COLUMNS.length + 1;

/** The values of entryWriteCondition, in the order of its placeholders. */
export function entryWriteValues(dialect: SqlDialect, write: EntryWrite): unknown[] {
  const { key } = write;
  return [key.tenantId, key.sessionId, key.key, write.version, dialect.valueKey(write.json)];
}

/**
 * The SQL condition that an entry write holds, its placeholders numbered from `first`: the
 * entry is at the write's version and holds its text (the version alone is not enough: the
 * owner that took a run over writes the same version numbers).
 */
export function entryWriteCondition(dialect: SqlDialect, first: number): string {
  const equal = KEY_COLUMNS.map((column, i) => `${column} = ${dialect.param(first + i)}`);
  const value = dialect.valueIs(dialect.param(first + KEY_COLUMNS.length));
  return `EXISTS (SELECT 1 FROM state_entries WHERE ${equal.join(' AND ')} AND ${value})`;
}

/** What the text of some inserted rows depends on. */
export interface InsertedRowsShape {
  rows: number;
  /** Values per row. */
  columns: number;
  /** One row, selected only if an entry write holds (its values after the row's). */
  conditioned?: boolean;
  /** The FROM clause a conditioned row is selected from (such as one that must be read first). */
  from?: string;
}

/**
 * The rows of an INSERT, placeholders numbered from `first`: `VALUES (…), (…)`, or conditioned
 * (one row) `SELECT … [from] WHERE` the write holds, so that the row is written only with it.
 */
export function insertedRowsText(
  dialect: SqlDialect,
  first: number,
  { rows, columns, conditioned = false, from = '' }: InsertedRowsShape,
): string {
  let n = first - 1;
  const row = () => Array.from({ length: columns }, () => dialect.param(++n)).join(', ');
  if (!conditioned) return `VALUES ${Array.from({ length: rows }, () => `(${row()})`).join(', ')}`;
  if (rows !== 1) throw new RangeError('a row written only with a write is one row');
  const values = row();
  const source = from === '' ? '' : `${from} `;
  return `SELECT ${values} ${source}WHERE ${entryWriteCondition(dialect, n + 1)}`;
}
