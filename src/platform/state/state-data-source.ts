import { DataSource, type DataSourceOptions } from 'typeorm';
import { stateMigrations } from '../../../migrations/index.js';
import type { StateConfig } from '../config/gateway-config.js';
import { RunLeaseEntity } from './entities/run-lease.entity.js';
import { StateEntryEntity } from './entities/state-entry.entity.js';

export const STATE_MIGRATIONS_TABLE = 'state_migrations';

/** How long a sqlite writer waits for the file lock before failing (busy timeout). */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;
const PG_CONNECT_TIMEOUT_MS = 5_000;
const PG_KEEPALIVE_DELAY_MS = 10_000;

/**
 * The one DataSource definition shared by the HTTP app and `svc migrate`: both drivers, the
 * entities and the migration list. `synchronize` stays off everywhere; migrations own the schema.
 */
export function stateDataSourceOptions(
  config: StateConfig,
  onPoolError: (error: Error) => void = () => undefined,
): DataSourceOptions {
  const common = {
    entities: [StateEntryEntity, RunLeaseEntity],
    migrations: stateMigrations,
    migrationsTableName: STATE_MIGRATIONS_TABLE,
    synchronize: false,
    logging: false,
  };
  if (config.backend === 'postgres') {
    return {
      ...common,
      type: 'postgres',
      url: config.dsn,
      poolSize: config.poolSize,
      connectTimeoutMS: PG_CONNECT_TIMEOUT_MS,
      applicationName: 'svc-gateway',
      installExtensions: false,
      poolErrorHandler: onPoolError,
      // A database that vanishes without closing its connections (a network partition, a node
      // gone) would leave statements waiting for the kernel's retransmission timeout, minutes:
      // they fail after queryTimeoutMs instead (503), and idle connections are probed.
      extra: {
        query_timeout: config.queryTimeoutMs,
        keepAlive: true,
        keepAliveInitialDelayMillis: PG_KEEPALIVE_DELAY_MS,
      },
    };
  }
  return {
    ...common,
    type: 'better-sqlite3',
    database: config.sqlitePath,
    enableWAL: true,
    timeout: SQLITE_BUSY_TIMEOUT_MS,
  };
}

export function createStateDataSource(config: StateConfig, onPoolError?: (error: Error) => void) {
  return new DataSource(stateDataSourceOptions(config, onPoolError));
}
