import { DataSource } from 'typeorm';
import { boardMigrations } from '../../migrations/board/index.js';
import type { BoardConfig } from '../platform/config/gateway-config.js';
import { postgresConnection, sqliteConnection } from '../platform/state/connection-options.js';
import { BoardCardEntity } from './entities/board-card.entity.js';

export const BOARD_MIGRATIONS_TABLE = 'board_migrations';

/**
 * PostgreSQL connections of the board per replica. Changes of one tenant's board wait for each
 * other anyway (an advisory lock), so a few serve many tenants; the state pool stays the runs'.
 */
const PG_POOL_SIZE = 4;

/**
 * The board's own DataSource: a sqlite file (TypeORM creates its directory) or a PostgreSQL pool
 * of its own, on the database SVC_BOARD_DB names (by default the state backend's). Its tables and
 * migrations table are its own either way; migrations own the schema.
 */
export function createBoardDataSource(
  config: BoardConfig,
  onPoolError: (error: Error) => void = () => undefined,
): DataSource {
  const common = {
    entities: [BoardCardEntity],
    migrations: boardMigrations,
    migrationsTableName: BOARD_MIGRATIONS_TABLE,
    synchronize: false,
    logging: false,
  };
  return new DataSource(
    config.backend === 'postgres'
      ? {
          ...common,
          ...postgresConnection({
            dsn: config.dsn,
            poolSize: PG_POOL_SIZE,
            queryTimeoutMs: config.queryTimeoutMs,
            applicationName: 'svc-gateway-board',
            onPoolError,
          }),
        }
      : { ...common, ...sqliteConnection(config.sqlitePath) },
  );
}
