import { Command } from 'nest-commander';
import { SvcCommand } from './svc-command.js';

@Command({ name: 'migrate', description: 'Apply pending state-backend migrations and exit' })
export class MigrateCommand extends SvcCommand {
  async run(): Promise<void> {
    // The state backend's driver and migrations load only for this command.
    const { migrateState } = await import('./migrate-state.js');
    await migrateState();
  }
}
