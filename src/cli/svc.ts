import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { PACKAGE } from '../platform/config/package-info.js';
import { reportCliError } from './cli-errors.js';
import { CliModule } from './cli.module.js';

/** The `svc` command line: parses the arguments and runs the command (main.ts). */
export async function runSvc(): Promise<void> {
  await CommandFactory.run(CliModule, {
    cliName: 'svc',
    version: PACKAGE.version,
    logger: false,
    serviceErrorHandler: reportCliError,
  });
}
