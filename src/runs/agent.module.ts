import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { GraphModule } from './graph/graph.module.js';
import { RunsModule } from './runs.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { StateModule } from '../platform/state/state.module.js';
import { ToolsModule } from '../tools/tools.module.js';
import { UsageModule } from '../usage/usage.module.js';
import { AgentController } from './start/agent-run.controller.js';
import { LoopModule } from './loop/loop.module.js';
import { AgentRunner } from './agent-runner.service.js';
import { AgentsToolset } from './run-agent.toolset.js';
import { PlainRunner } from './plain/plain-runner.service.js';
import { RunRecovery } from './lifecycle/run-recovery.service.js';
import { RunLineageMiddleware } from './lifecycle/run-lineage.middleware.js';

/**
 * The agent runtime: `POST /v1/agent/run`, plain execution, the runner every kind of run starts
 * and goes on through (also for `svc run` in-process), and the recovery of orphaned runs.
 */
@Module({
  imports: [
    StateModule,
    ToolsModule,
    LoopModule,
    RunsModule,
    SessionsModule,
    AgentsModule,
    GraphModule,
    UsageModule,
  ],
  controllers: [AgentController],
  providers: [PlainRunner, AgentRunner, AgentsToolset, RunRecovery, RunLineageMiddleware],
  exports: [AgentRunner, RunLineageMiddleware],
})
export class AgentModule {}
