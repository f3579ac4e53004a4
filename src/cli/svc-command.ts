import type { Command } from 'commander';
import { CommandRunner } from 'nest-commander';

/**
 * Base of every `svc` subcommand: a mistake in its arguments prints the error followed by the
 * usage, then exits non-zero (commander does not pass this setting down to added subcommands).
 */
export abstract class SvcCommand extends CommandRunner {
  override setCommand(command: Command): this {
    command.showHelpAfterError();
    return super.setCommand(command);
  }
}
