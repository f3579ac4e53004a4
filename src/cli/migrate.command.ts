import { Command } from 'nest-commander';
import { loadConfig } from '../platform/config/load-config.js';
import { runStateMigrations } from '../platform/state/run-migrations.js';
import { createStateDataSource } from '../platform/state/state-data-source.js';
import { CliFailure } from './cli-errors.js';
import { SvcCommand } from './svc-command.js';

@Command({ name: 'migrate', description: 'Apply pending state-backend migrations and exit' })
export class MigrateCommand extends SvcCommand {
  async run(): Promise<void> {
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
}
