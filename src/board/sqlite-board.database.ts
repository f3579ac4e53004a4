import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { type DataSource, type EntityManager, MigrationExecutor, type QueryRunner } from 'typeorm';
import { ConfigError } from '../platform/config/config-error.js';
import { BoardDatabase, boardError } from './board-database.js';
import { createBoardDataSource } from './board-data-source.js';

/**
 * The board in a sqlite file of this replica: opened and migrated at module init, closed at
 * shutdown. A local file that cannot be opened is a deployment mistake, so it stops the start (a
 * ConfigError naming SVC_BOARD_DB) instead of retrying as a PostgreSQL board does.
 *
 * better-sqlite3 gives TypeORM one connection, and TypeORM nests a second concurrent
 * transaction inside the first as a savepoint. So all board work runs one piece at a time
 * through `exclusive` (each piece is a few statements on a local file), and writes begin with
 * BEGIN IMMEDIATE, so another process on the same file waits (busy timeout) instead of failing.
 */
export class SqliteBoardDatabase
  extends BoardDatabase
  implements OnModuleInit, OnApplicationShutdown
{
  readonly backend = 'sqlite';
  private readonly logger = new Logger('BoardDatabase');
  private readonly dataSource: DataSource;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {
    super();
    this.dataSource = createBoardDataSource({ backend: 'sqlite', sqlitePath: path });
  }

  async onModuleInit(): Promise<void> {
    try {
      await this.dataSource.initialize();
      const applied = await this.migrate();
      if (applied.length > 0) this.logger.log(`applied board migrations: ${applied.join(', ')}`);
    } catch (error) {
      if (this.dataSource.isInitialized) await this.dataSource.destroy();
      const reason = error instanceof Error ? error.message : String(error);
      // Named after the variable: `svc` prints it as one line and exits 2.
      throw new ConfigError(
        `SVC_BOARD_DB ${JSON.stringify(this.path)} cannot be opened: ${reason}`,
        { cause: error },
      );
    }
  }

  /**
   * Applies pending migrations in one transaction that holds the file's write lock from before
   * it reads what is applied: processes starting together on a new file (`svc serve` beside
   * `svc run`) migrate one after another, and the later ones find nothing pending.
   */
  private migrate(): Promise<string[]> {
    return this.transaction(async (runner) => {
      const executor = new MigrationExecutor(this.dataSource, runner);
      executor.transaction = 'none'; // this transaction is the one
      const applied = await executor.executePendingMigrations();
      return applied.map((migration) => migration.name);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    // Let a write in progress finish before the file closes.
    await this.tail;
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.classified(this.exclusive((runner) => work(runner.manager)));
  }

  /** One writer per file at a time, so the tenant needs no lock of its own. */
  write<T>(_tenantId: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.classified(this.transaction((runner) => work(runner.manager)));
  }

  /** A file locked past the busy timeout or a failing disk is a 503, as for the state file. */
  private async classified<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      throw boardError(error, this.backend);
    }
  }

  /** Runs `work` alone on the connection: no other board statement interleaves with it. */
  private exclusive<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const result = this.tail.then(() => work(this.dataSource.createQueryRunner()));
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Like `exclusive`, inside one transaction that takes the write lock at once. */
  private transaction<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    return this.exclusive(async (runner) => {
      await runner.query('BEGIN IMMEDIATE');
      try {
        const result = await work(runner);
        await runner.query('COMMIT');
        return result;
      } catch (error) {
        // sqlite ends a transaction itself on some errors; the original error is the news.
        await runner.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }
}
