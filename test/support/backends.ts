import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestDatabase, createTestDatabase } from './postgres.js';

export const BACKENDS = ['sqlite', 'postgres'] as const;
export type Backend = (typeof BACKENDS)[number];

export interface BackendFixture {
  backend: Backend;
  /** SVC_STATE_* variables that point a gateway at this backend. */
  env: Record<string, string>;
  /** Set for postgres: the test's own database. */
  database?: TestDatabase;
  cleanup(): Promise<void>;
}

/** A fresh state backend: a new sqlite file in a temp dir, or a new PostgreSQL database. */
export async function createBackend(backend: Backend): Promise<BackendFixture> {
  if (backend === 'postgres') {
    const database = await createTestDatabase();
    return {
      backend,
      env: { SVC_STATE_BACKEND: 'postgres', SVC_STATE_DSN: database.dsn },
      database,
      cleanup: () => database.drop(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-state-'));
  return {
    backend,
    env: { SVC_STATE_BACKEND: 'sqlite', SVC_STATE_SQLITE: join(dir, 'nested', 'state.sqlite') },
    cleanup: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}
