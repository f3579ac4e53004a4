import { ConfigError } from '../platform/config/config-error.js';

/** Exit status for configuration mistakes (CONTRACT section 1). */
export const EXIT_CONFIG = 2;
export const EXIT_FAILURE = 1;

/** A command failed in a way the user can act on: print its message, no stack trace. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
}

/** The one place a command's error becomes a line on stderr and an exit status. */
export function reportCliError(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ConfigError) {
    process.stderr.write(`svc: invalid configuration: ${message}\n`);
    process.exitCode = EXIT_CONFIG;
    return;
  }
  if (error instanceof CliFailure) {
    process.stderr.write(`svc: ${message}\n`);
  } else {
    process.stderr.write(
      `svc: unexpected error: ${error instanceof Error ? (error.stack ?? message) : message}\n`,
    );
  }
  process.exitCode = EXIT_FAILURE;
}
