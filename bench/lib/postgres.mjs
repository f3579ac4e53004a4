/** A throwaway PostgreSQL database for one bench run; dropped on cleanup even with open pools. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { scoped } from './cleanup.mjs';

async function asAdmin(adminDsn, sql) {
  const client = new pg.Client({ connectionString: adminDsn });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createBenchDatabase(adminDsn) {
  const name = `svc_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await asAdmin(adminDsn, `CREATE DATABASE ${name}`);
  const drop = scoped(() => asAdmin(adminDsn, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(adminDsn);
  url.pathname = `/${name}`;
  return {
    name,
    dsn: url.toString(),
    drop,
  };
}
