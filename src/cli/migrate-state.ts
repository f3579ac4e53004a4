import { loadConfig } from '../platform/config/load-config.js';
import { runStateMigrations } from '../platform/state/run-migrations.js';
import { createStateDataSource } from '../platform/state/state-data-source.js';
import { CliFailure } from './cli-errors.js';

/** `svc migrate`: applies pending state migrations and says what it did. Loaded when it runs. */
export async function migrateState(): Promise<void> {
  const config = loadConfig();
  const dataSource = createStateDataSource(config.state);
  try {
    await dataSource.initialize();
  } catch (error) {
    throw new CliFailure(
      `cannot reach the ${config.state.backend} state backend: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    const applied = await runStateMigrations(dataSource);
    process.stdout.write(
      applied.length > 0
        ? `applied ${applied.length} migration(s): ${applied.join(', ')}\n`
        : 'state backend is up to date\n',
    );
  } finally {
    await dataSource.destroy();
  }
}
