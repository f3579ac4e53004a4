import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { stateMigrations } from '../migrations/index.js';
import { STATE_MIGRATIONS_TABLE } from '../src/platform/state/state-data-source.js';
import { type TestDatabase, createTestDatabase } from './support/postgres.js';
import { startGateway } from './support/gateway.js';

describe('migrations on PostgreSQL', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());

  it('runs once when two instances start at the same moment on an empty database', async () => {
    const env = { SVC_STATE_BACKEND: 'postgres', SVC_STATE_DSN: database.dsn };
    const [a, b] = await Promise.all([startGateway(env), startGateway(env)]);
    try {
      for (const gateway of [a, b]) {
        const res = await request(gateway.url).get('/readyz').expect(200);
        expect(res.body.migrations).toEqual({ applied: stateMigrations.length, pending: [] });
      }
      const rows = await database.query<{ name: string }>(
        `SELECT name FROM ${STATE_MIGRATIONS_TABLE}`,
      );
      expect(rows.map((row) => row.name)).toEqual(stateMigrations.map((m) => new m().name));
      const tables = await database.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
      );
      expect(tables.map((t) => t.table_name)).toEqual([
        'a2a_tasks',
        'audit_events',
        'messaging_outbox',
        'run_events',
        'run_leases',
        'run_webhooks',
        'state_entries',
        STATE_MIGRATIONS_TABLE,
        'studio_loops',
        'studio_sessions',
        'token_usage',
      ]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('reports not_ready while a shipped migration is missing from the database', async () => {
    const env = { SVC_STATE_BACKEND: 'postgres', SVC_STATE_DSN: database.dsn };
    const gateway = await startGateway(env);
    try {
      await database.query(`DELETE FROM ${STATE_MIGRATIONS_TABLE}`);
      const res = await request(gateway.url).get('/readyz').expect(503);
      expect(res.body).toMatchObject({ status: 'not_ready', backend: 'postgres' });
      expect(res.body.reason).toContain('pending migrations');
    } finally {
      await gateway.close();
    }
  });
});
