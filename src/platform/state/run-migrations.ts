import { type DataSource, MigrationExecutor } from 'typeorm';

/**
 * Session-level PostgreSQL advisory lock held while migrating, so replicas that start at the same
 * moment migrate one after another: the first applies, the rest find nothing pending.
 */
const MIGRATION_LOCK = `hashtext('svc-gateway:state-migrations')`;

/** Applies pending migrations in one transaction; returns the names of those applied. */
export async function runStateMigrations(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const postgres = dataSource.options.type === 'postgres';
  try {
    if (postgres) await runner.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'all';
      const applied = await executor.executePendingMigrations();
      return applied.map((migration) => migration.name);
    } finally {
      if (postgres) await runner.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
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
