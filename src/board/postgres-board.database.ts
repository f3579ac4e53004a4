import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { BoardConfig } from '../platform/config/gateway-config.js';
import type { ReadinessChecks } from '../platform/health/readiness-checks.js';
import { MigratedDataSource } from '../platform/state/migrated-data-source.js';
import { runMigrations } from '../platform/state/run-migrations.js';
import { BoardDatabase, boardError } from './board-database.js';
import { createBoardDataSource } from './board-data-source.js';

/** Held while migrating, so replicas starting together migrate one after another. */
const MIGRATION_LOCK = 'svc-gateway:board-migrations';
/** The first key of the per-tenant write lock (the second is the tenant's hash). */
const WRITE_LOCK_SPACE = 'svc-gateway:board';

/**
 * The board in a PostgreSQL database every replica shares. Like the state backend it connects
 * and migrates at start (under an advisory lock) and, while the database cannot be reached,
 * keeps retrying in the background: the process serves, /readyz names the board as the reason,
 * and board calls answer 503 with `Retry-After`.
 *
 * A change of a tenant's board renumbers positions from what it reads, so changes of one tenant
 * must not interleave: each takes a transaction-level advisory lock on the tenant first, and
 * runs at READ COMMITTED, so every statement after the lock sees what the previous holder
 * committed. One lock per tenant (not per column) covers a move between two columns and the
 * card limit, and never deadlocks. Reads are single statements and take no lock.
 */
export class PostgresBoardDatabase
  extends BoardDatabase
  implements OnModuleInit, OnApplicationShutdown
{
  readonly backend = 'postgres';
  private readonly database: MigratedDataSource<'postgres'>;

  constructor(
    config: Extract<BoardConfig, { backend: 'postgres' }>,
    private readonly checks: ReadinessChecks,
  ) {
    super();
    this.database = new MigratedDataSource({
      name: 'the board database',
      backend: 'postgres',
      logger: new Logger('BoardDatabase'),
      create: (onPoolError) => createBoardDataSource(config, onPoolError),
      migrate: (dataSource) => runMigrations(dataSource, MIGRATION_LOCK),
      classify: (error) => boardError(error, this.backend),
    });
  }

  /** Tries once before the app listens; on failure the app starts anyway and keeps retrying. */
  async onModuleInit(): Promise<void> {
    this.checks.add('board', () => this.database.readiness());
    await this.database.connect();
  }

  read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.database.use((source) => work(source.manager));
  }

  write<T>(tenantId: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.database.use((source) =>
      source.transaction('READ COMMITTED', async (manager) => {
        await manager.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
          WRITE_LOCK_SPACE,
          tenantId,
        ]);
        return work(manager);
      }),
    );
  }

  /** After the HTTP server has drained (Nest's order), so requests in flight keep the pool. */
  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}
