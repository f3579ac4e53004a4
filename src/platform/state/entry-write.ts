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
