import type { DataSourceOptions } from 'typeorm';

/** How long a sqlite writer waits for the file lock (another process on the same file). */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;
const PG_CONNECT_TIMEOUT_MS = 5_000;
const PG_KEEPALIVE_DELAY_MS = 10_000;

type Connection<T extends DataSourceOptions['type']> = Extract<DataSourceOptions, { type: T }>;

/**
 * A sqlite file in WAL mode with `synchronous = NORMAL`, SQLite's advice for WAL: a commit is
 * not fsynced (the WAL is, at checkpoints). better-sqlite3 runs on the event loop, so a fsync
 * per commit (FULL, the default) held the whole process about 1 ms per write statement. A
 * process that crashes or is killed loses nothing; an OS crash or power loss can lose the last
 * commits, never the file's consistency (docs/decisions.md).
 */
export function sqliteConnection(
  path: string,
  { checkpointPages }: { checkpointPages?: number } = {},
): Connection<'better-sqlite3'> {
  return {
    type: 'better-sqlite3',
    database: path,
    enableWAL: true,
    timeout: SQLITE_BUSY_TIMEOUT_MS,
    prepareDatabase: (db: { pragma(source: string): unknown }) => {
      db.pragma('synchronous = NORMAL');
      // The WAL size at which a commit checkpoints (SQLite's default 1,000 pages); larger
      // where a SqliteCheckpointer does it off the event loop.
      if (checkpointPages !== undefined) db.pragma(`wal_autocheckpoint = ${checkpointPages}`);
    },
  };
}

export interface PostgresConnectionSpec {
  dsn: string | undefined;
  poolSize: number;
  queryTimeoutMs: number;
  /** Shown in pg_stat_activity: which pool of the gateway a connection belongs to. */
  applicationName: string;
  onPoolError: (error: Error) => void;
  /**
   * node-postgres's pipeline mode: a client sends the statements it is given without waiting
   * for the answer to the one before (each keeps its own implicit transaction). The state
   * pool's statements go in groups (PostgresStatements).
   */
  pipeline?: boolean;
}

/** A PostgreSQL pool as every pool of the gateway opens it. */
export function postgresConnection(spec: PostgresConnectionSpec): Connection<'postgres'> {
  return {
    type: 'postgres',
    url: spec.dsn,
    poolSize: spec.poolSize,
    connectTimeoutMS: PG_CONNECT_TIMEOUT_MS,
    applicationName: spec.applicationName,
    installExtensions: false,
    poolErrorHandler: spec.onPoolError,
    // A database that vanishes without closing its connections (a network partition, a node
    // gone) would leave statements waiting for the kernel's retransmission timeout, minutes:
    // they fail after queryTimeoutMs instead (503), and idle connections are probed.
    extra: {
      query_timeout: spec.queryTimeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: PG_KEEPALIVE_DELAY_MS,
      pipeline: spec.pipeline ?? false,
    },
  };
}
