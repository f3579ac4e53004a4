import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Command } from 'commander';
import { InjectCommander } from 'nest-commander';

/** The root `svc` program: its name in usage lines, and usage after any mistake. */
@Injectable()
export class CliProgram implements OnModuleInit {
  constructor(@InjectCommander() private readonly program: Command) {}

  onModuleInit(): void {
    this.program.name('svc').showHelpAfterError();
  }
}
