/**
 * The state baselines: the same single statements through the drivers directly.
 * Both expose put(tenant, session, key, json) and claim(tenant, runId, owner, ttlMs).
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { SQLITE_SCHEMA, stateSql } from './state-sql.mjs';

/** better-sqlite3 on its own file in WAL mode (like the store), prepared statements. */
export function openRawSqlite(file) {
  const db = new Database(file, { timeout: 5_000 });
  db.pragma('journal_mode = WAL');
  db.exec(SQLITE_SCHEMA);
  const sql = stateSql('sqlite');
  const upsert = db.prepare(sql.upsert);
  const claim = db.prepare(sql.claimLease);
  return {
    put: async (...params) => upsert.get(...params),
    claim: async (...params) => claim.get(...params),
    close: async () => db.close(),
  };
}

/** A pg Pool of `poolSize` on an already migrated database. */
export function openRawPostgres(dsn, poolSize) {
  const pool = new pg.Pool({ connectionString: dsn, max: poolSize });
  // An idle connection cut by the server (the database dropped on Ctrl-C) must not crash the run.
  pool.on('error', () => undefined);
  const sql = stateSql('postgres');
  return {
    put: (...params) => pool.query(sql.upsert, params),
    claim: (...params) => pool.query(sql.claimLease, params),
    close: () => pool.end(),
  };
}
