import { Module } from '@nestjs/common';
import { CliProgram } from './cli-program.js';
import { MigrateCommand } from './migrate.command.js';
import { RunCommand } from './run.command.js';
import { ServeCommand } from './serve.command.js';
import { StudioCommand, StudioShowCommand } from './studio.command.js';

/**
 * The `svc` command line (nest-commander). Each command builds what it needs: the HTTP app for
 * serve, an application context for run, a DataSource for migrate, an HTTP client of a serving
 * gateway for studio show and run --url. The HTTP app never imports this module.
 */
@Module({
  providers: [
    CliProgram,
    ServeCommand,
    MigrateCommand,
    RunCommand,
    StudioCommand,
    StudioShowCommand,
  ],
})
export class CliModule {}
