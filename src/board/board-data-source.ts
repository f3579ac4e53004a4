import { DataSource } from 'typeorm';
import { boardMigrations } from '../../migrations/board/index.js';
import { BoardCardEntity } from './entities/board-card.entity.js';

export const BOARD_MIGRATIONS_TABLE = 'board_migrations';

/** How long a writer waits for the file lock (another process on the same file) before failing. */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * The board's own database: always a local sqlite file (SVC_BOARD_DB), whatever the state
 * backend. TypeORM creates the file's directory. Migrations own the schema.
 */
export function createBoardDataSource(path: string): DataSource {
  return new DataSource({
    type: 'better-sqlite3',
    database: path,
    enableWAL: true,
    timeout: SQLITE_BUSY_TIMEOUT_MS,
    entities: [BoardCardEntity],
    migrations: boardMigrations,
    migrationsTableName: BOARD_MIGRATIONS_TABLE,
    synchronize: false,
    logging: false,
  });
}
