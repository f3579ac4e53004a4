import { DataSource } from 'typeorm';
import { boardMigrations } from '../../migrations/board/index.js';
import type { BoardConfig } from '../platform/config/gateway-config.js';
import { BoardCardEntity } from './entities/board-card.entity.js';

export const BOARD_MIGRATIONS_TABLE = 'board_migrations';

/** How long a sqlite writer waits for the file lock (another process on the same file) before failing. */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;
/**
 * PostgreSQL connections of the board per replica. Changes of one tenant's board wait for each
 * other anyway (an advisory lock), so a few serve many tenants; the state pool stays the runs'.
 */
const PG_POOL_SIZE = 4;
const PG_CONNECT_TIMEOUT_MS = 5_000;
const PG_KEEPALIVE_DELAY_MS = 10_000;

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
  if (config.backend === 'postgres') {
    return new DataSource({
      ...common,
      type: 'postgres',
      url: config.dsn,
      poolSize: PG_POOL_SIZE,
      connectTimeoutMS: PG_CONNECT_TIMEOUT_MS,
      applicationName: 'svc-gateway-board',
      installExtensions: false,
      poolErrorHandler: onPoolError,
      // As for the state pool: a database gone without closing its connections fails statements
      // after the query timeout (503) instead of the kernel's minutes.
      extra: {
        query_timeout: config.queryTimeoutMs,
        keepAlive: true,
        keepAliveInitialDelayMillis: PG_KEEPALIVE_DELAY_MS,
      },
    });
  }
  return new DataSource({
    ...common,
    type: 'better-sqlite3',
    database: config.sqlitePath,
    enableWAL: true,
    timeout: SQLITE_BUSY_TIMEOUT_MS,
  });
}
