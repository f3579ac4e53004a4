import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { type DataSource, MigrationExecutor, type QueryRunner } from 'typeorm';
import { ConfigError } from '../platform/config/config-error.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { createBoardDataSource } from './board-data-source.js';

/**
 * Owns the board's DataSource: opens the sqlite file and applies the board migrations at module
 * init, closes it at shutdown. A local file that cannot be opened is a deployment mistake, so
 * it stops the start (a ConfigError naming SVC_BOARD_DB) instead of retrying as the state
 * backend does, which may be remote and come back.
 *
 * better-sqlite3 gives TypeORM one connection, and TypeORM nests a second concurrent
 * transaction inside the first as a savepoint. So all board work runs one piece at a time
 * through `exclusive` (each piece is a few statements on a local file), and writes begin with
 * BEGIN IMMEDIATE, so another process on the same file waits (busy timeout) instead of failing.
 */
@Injectable()
export class BoardDatabase implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(BoardDatabase.name);
  readonly path: string;
  private readonly dataSource: DataSource;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(config: ConfigService<GatewayConfig, true>) {
    this.path = config.get('board', { infer: true }).dbPath;
    this.dataSource = createBoardDataSource(this.path);
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

  /** Runs `work` alone on the connection: no other board statement interleaves with it. */
  exclusive<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const result = this.tail.then(() => work(this.dataSource.createQueryRunner()));
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Like `exclusive`, inside one transaction that takes the write lock at once. */
  transaction<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
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
