import { DataSource, type DataSourceOptions } from 'typeorm';
import { stateMigrations } from '../../../migrations/index.js';
import type { StateConfig } from '../config/gateway-config.js';
import { postgresConnection, sqliteConnection } from './connection-options.js';
import { RunLeaseEntity } from './entities/run-lease.entity.js';
import { StateEntryEntity } from './entities/state-entry.entity.js';

export const STATE_MIGRATIONS_TABLE = 'state_migrations';

/**
 * The state connection's own auto-checkpoint, a bound only: a SqliteCheckpointer thread copies
 * the WAL every 100 commits. Under writes that never pause, the log can start over only after
 * a checkpoint by the writer itself, here at about 40 MB of WAL.
 */
export const STATE_CHECKPOINT_PAGES = 10_000;

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
  return config.backend === 'postgres'
    ? {
        ...common,
        ...postgresConnection({
          dsn: config.dsn,
          poolSize: config.poolSize,
          queryTimeoutMs: config.queryTimeoutMs,
          applicationName: 'svc-gateway',
          onPoolError,
          pipeline: true,
        }),
      }
    : {
        ...common,
        ...sqliteConnection(config.sqlitePath, { checkpointPages: STATE_CHECKPOINT_PAGES }),
      };
}

export function createStateDataSource(config: StateConfig, onPoolError?: (error: Error) => void) {
  return new DataSource(stateDataSourceOptions(config, onPoolError));
}
