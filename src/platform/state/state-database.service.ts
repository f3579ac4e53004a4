import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Database } from 'better-sqlite3';
import type pg from 'pg';
import type { DataSource, QueryResult } from 'typeorm';
import type { GatewayConfig, StateBackend } from '../config/gateway-config.js';
import { type DataSourceReadiness, MigratedDataSource, messageOf } from './migrated-data-source.js';
import { runStateMigrations } from './run-migrations.js';
import { SQLITE_BUSY_TIMEOUT_MS } from './connection-options.js';
import type { PostgresStatements } from './postgres-statements.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import { SqliteStatements } from './sqlite-statements.js';
import { StatementNames } from './statement-names.js';
import { createStateDataSource } from './state-data-source.js';
import { classifyStateError } from './state-unavailable.js';
import { LazyModule } from '../lazy/lazy-module.js';

/** PostgreSQL's statements, and node-postgres under them: imported only on that backend. */
const postgresStatementsModule = new LazyModule(
  'PostgresStatements',
  () => import('./postgres-statements.js'),
);

export type BackendReadiness = DataSourceReadiness<StateBackend>;

/**
 * Owns the state DataSource (a MigratedDataSource: connected and migrated at start, retried in
 * the background while the backend is down). Every statement goes through `query` or `use`,
 * where a backend that cannot be reached becomes StateUnavailableError (503 on every surface).
 */
@Injectable()
export class StateDatabase implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(StateDatabase.name);
  readonly backend: StateBackend;
  private readonly database: MigratedDataSource<StateBackend>;
  private readonly closeHooks: Array<() => Promise<unknown>> = [];
  /**
   * The sqlite connection's statements (prepared once, writes committed in groups) and the
   * thread that checkpoints its WAL.
   */
  private sqlite?: {
    connection: Database;
    statements: SqliteStatements;
    checkpointer: SqliteCheckpointer;
  };
  /** The PostgreSQL pool's statements (sent in pipelined groups). */
  private postgres?: { pool: pg.Pool; statements: PostgresStatements };
  /** The statements' names on PostgreSQL, kept across pools (a reconnect keeps the texts). */
  private readonly names?: StatementNames;

  constructor(config: ConfigService<GatewayConfig, true>) {
    const state = config.get('state', { infer: true });
    this.backend = state.backend;
    if (state.preparedStatements) this.names = new StatementNames();
    this.database = new MigratedDataSource({
      name: 'state backend',
      backend: state.backend,
      logger: this.logger,
      create: (onPoolError) => createStateDataSource(state, onPoolError),
      migrate: runStateMigrations,
      classify: (error) => classifyStateError(error, this.backend),
    });
  }

  async onModuleInit(): Promise<void> {
    if (this.backend === 'postgres') await postgresStatementsModule.load();
    await this.database.connect();
  }

  /**
   * Runs one statement; rows and affected count come in the same shape on both drivers, as a
   * TypeORM QueryRunner answers them (a failure thrown as QueryFailedError), without building
   * one. On PostgreSQL it goes to the pool TypeORM opened through PostgresStatements (pipelined
   * groups); on sqlite to TypeORM's better-sqlite3 connection through SqliteStatements.
   */
  query(sql: string, params: unknown[] = []): Promise<QueryResult> {
    return this.use((source) => {
      if (this.backend === 'sqlite') return this.sqliteStatements(source).run(sql, params);
      const pool = poolOf(source);
      if (pool) return this.postgresStatements(pool).run(sql, params);
      return queryOnRunner(source, sql, params);
    });
  }

  private postgresStatements(pool: pg.Pool): PostgresStatements {
    if (this.postgres?.pool !== pool)
      this.postgres = {
        pool,
        statements: new (postgresStatementsModule.get().PostgresStatements)(pool, this.names),
      };
    return this.postgres.statements;
  }

  private sqliteStatements(source: DataSource): SqliteStatements {
    const connection = (source.driver as unknown as { databaseConnection: Database })
      .databaseConnection;
    if (this.sqlite?.connection !== connection) {
      void this.sqlite?.checkpointer.close();
      const checkpointer = new SqliteCheckpointer({
        path: connection.name,
        busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS,
        logger: this.logger,
        onFailed: (pages) => connection.pragma(`wal_autocheckpoint = ${pages}`),
      });
      const statements = new SqliteStatements(connection, () => checkpointer.committed());
      this.sqlite = { connection, statements, checkpointer };
    }
    return this.sqlite.statements;
  }

  /**
   * Runs `work` on the connected, migrated DataSource. Throws StateUnavailableError before the
   * first migration and whenever the backend cannot be reached; other errors pass unchanged.
   */
  use<T>(work: (source: DataSource) => Promise<T>): Promise<T> {
    return this.database.use(work);
  }

  /** Live check for /readyz: the backend answers now and no migration is pending. */
  readiness(): Promise<BackendReadiness> {
    return this.database.readiness();
  }

  /** Work that needs the connection one last time at shutdown (releasing leases). */
  beforeClose(hook: () => Promise<unknown>): void {
    this.closeHooks.push(hook);
  }

  /**
   * Nest runs this after the HTTP server has drained, so in-flight requests keep their connections
   * until they finish; then the close hooks run, then the pool closes.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.database.close(async () => {
      for (const hook of this.closeHooks) {
        await hook().catch((error: unknown) =>
          this.logger.warn(`shutdown step failed: ${messageOf(error)}`),
        );
      }
      // Its connection first: the last one to close checkpoints and removes the WAL.
      await this.sqlite?.checkpointer.close();
    });
  }
}

/** The node-postgres pool of a connected PostgreSQL DataSource (TypeORM's driver `master`). */
function poolOf(source: DataSource): pg.Pool | undefined {
  const master = (source.driver as unknown as { master?: pg.Pool }).master;
  return typeof master?.connect === 'function' ? master : undefined;
}

/** A statement on a query runner of its own (a PostgreSQL driver without a pool to pipeline on). */
async function queryOnRunner(
  source: DataSource,
  sql: string,
  params: unknown[],
): Promise<QueryResult> {
  const runner = source.createQueryRunner();
  try {
    return await runner.query(sql, params, true);
  } finally {
    await runner.release();
  }
}
