#!/usr/bin/env node
import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { PACKAGE } from './platform/config/package-info.js';
import { reportCliError } from './cli/cli-errors.js';
import { CliModule } from './cli/cli.module.js';

await CommandFactory.run(CliModule, {
  cliName: 'svc',
  version: PACKAGE.version,
  logger: false,
  serviceErrorHandler: reportCliError,
});
