import type { EntryWrite } from './state-store.js';

/**
 * The SQL condition that `write` holds. `param` makes each placeholder where it appears (sqlite
 * binds in order of appearance).
 */
export function entryWriteHolds(write: EntryWrite, param: (value: unknown) => string): string {
  const { key } = write;
  return `EXISTS (SELECT 1 FROM state_entries
    WHERE tenant_id = ${param(key.tenantId)} AND session_id = ${param(key.sessionId)}
      AND "key" = ${param(key.key)} AND version = ${param(write.version)}
      AND value = ${param(write.json)})`;
}
