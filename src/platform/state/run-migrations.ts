import { type DataSource, MigrationExecutor } from 'typeorm';

/** Applies pending state migrations in one transaction; returns the names of those applied. */
export function runStateMigrations(dataSource: DataSource): Promise<string[]> {
  return runMigrations(dataSource, 'svc-gateway:state-migrations');
}

/**
 * Applies a DataSource's pending migrations in one transaction. On PostgreSQL a session-level
 * advisory lock named `lockName` is held meanwhile, so replicas that start at the same moment
 * migrate one after another: the first applies, the rest find nothing pending.
 */
export async function runMigrations(dataSource: DataSource, lockName: string): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const postgres = dataSource.options.type === 'postgres';
  try {
    if (postgres) await runner.query('SELECT pg_advisory_lock(hashtext($1))', [lockName]);
    try {
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'all';
      const applied = await executor.executePendingMigrations();
      return applied.map((migration) => migration.name);
    } finally {
      if (postgres) await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [lockName]);
    }
  } finally {
    await runner.release();
  }
}

export interface MigrationStatus {
  applied: number;
  pending: string[];
}

/** What the migrations table says, compared with the migrations this build ships. */
export async function migrationStatus(dataSource: DataSource): Promise<MigrationStatus> {
  const executed = await new MigrationExecutor(dataSource).getExecutedMigrations();
  const done = new Set(executed.map((migration) => migration.name));
  const pending = dataSource.migrations
    .map((migration) => migration.name ?? migration.constructor.name)
    .filter((name) => !done.has(name));
  return { applied: executed.length, pending };
}
