import { Module } from '@nestjs/common';
import { ProvidersModule } from '../../providers/providers.module.js';
import { ToolsModule } from '../../tools/tools.module.js';
import { AgentLoop } from './agent-loop.service.js';

/** The model ↔ tools loop, shared by plain agent runs and the `agent` steps of graphs. */
@Module({
  imports: [ProvidersModule, ToolsModule],
  providers: [AgentLoop],
  exports: [AgentLoop],
})
export class LoopModule {}
