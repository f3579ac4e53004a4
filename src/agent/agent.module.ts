import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { ProvidersModule } from '../providers/providers.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { StateModule } from '../state/state.module.js';
import { ToolsModule } from '../tools/tools.module.js';
import { AgentController } from './agent.controller.js';
import { AgentLoop } from './agent-loop.service.js';
import { AgentRunner } from './agent-runner.service.js';
import { RunExecutor } from './run-executor.service.js';

/** The agent runtime: `POST /v1/agent/run` and the services `svc run` uses in-process. */
@Module({
  imports: [StateModule, ProvidersModule, ToolsModule, RunsModule, SessionsModule, AgentsModule],
  controllers: [AgentController],
  providers: [AgentLoop, RunExecutor, AgentRunner],
  exports: [AgentRunner],
})
export class AgentModule {}
