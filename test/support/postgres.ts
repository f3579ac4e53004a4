import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The PostgreSQL server the e2e suite uses (trust auth on this machine and in CI). Override with
 * SVC_TEST_PG_DSN. A missing server fails the suite: it is never skipped.
 */
export const ADMIN_DSN =
  process.env.SVC_TEST_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: string;
  dsn: string;
  /** Runs one query in this database (for assertions on what the gateway wrote). */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    params?: unknown[],
  ): Promise<T[]>;
  drop(): Promise<void>;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_DSN });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is required by the e2e suite at ${ADMIN_DSN} (set SVC_TEST_PG_DSN): ${String(error)}`,
      { cause: error },
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export function dsnFor(database: string, base = ADMIN_DSN): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A fresh, empty database for one test file; drop() removes it even with connections open. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `svc_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  const dsn = dsnFor(name);
  return {
    name,
    dsn,
    async query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
      const client = new pg.Client({ connectionString: dsn });
      await client.connect();
      try {
        return (await client.query<T>(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    drop: () =>
      withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}
