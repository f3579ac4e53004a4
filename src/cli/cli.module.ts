import { Module } from '@nestjs/common';
import { CliProgram } from './cli-program.js';
import { MigrateCommand } from './migrate.command.js';
import { RunCommand } from './run.command.js';
import { ServeCommand } from './serve.command.js';

/**
 * The `svc` command line (nest-commander). Each command builds the Nest context it needs (the
 * HTTP app for serve, an application context for run, a DataSource for migrate); the HTTP app
 * never imports this module.
 */
@Module({ providers: [CliProgram, ServeCommand, MigrateCommand, RunCommand] })
export class CliModule {}
