import { Module } from '@nestjs/common';
import { StateModule } from '../platform/state/state.module.js';
import { ToolsModule } from '../tools/tools.module.js';
import { AgentSpecStore } from './agent-spec.store.js';
import { AgentsController } from './agents.controller.js';

/** Agent specifications per tenant (`/v1/agents`); GraphModule runs them. */
@Module({
  imports: [StateModule, ToolsModule],
  controllers: [AgentsController],
  providers: [AgentSpecStore],
  exports: [AgentSpecStore],
})
export class AgentsModule {}
