import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { StateModule } from '../platform/state/state.module.js';
import { AgentModule } from '../runs/agent.module.js';
import { ApprovalModule } from '../runs/approval/approval.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { ToolsModule } from '../tools/tools.module.js';
import { A2AController } from './a2a.controller.js';
import { A2AWireErrors } from './a2a-wire-errors.js';
import { A2APushNotifications } from './push-notifications.js';
import { RunTasksHandler } from './run-tasks.handler.js';
import { A2ATaskDecisions } from './task-decisions.js';
import { A2ATaskIndex } from './task-index.js';
import { A2ATaskListing } from './task-listing.js';
import { A2ATaskRecords } from './task-records.js';
import { A2ATaskStreams } from './task-streams.js';
import { A2ATaskUpkeep } from './task-upkeep.js';

/**
 * The A2A wire: agent cards and the JSON-RPC and HTTP+JSON bindings, tasks as runs
 * (RunTasksHandler), their index for ListTasks, and A2A's error shapes on both bindings.
 */
@Module({
  imports: [StateModule, AgentModule, RunsModule, ApprovalModule, AgentsModule, ToolsModule],
  controllers: [A2AController],
  providers: [
    RunTasksHandler,
    A2ATaskRecords,
    A2ATaskDecisions,
    A2ATaskIndex,
    A2ATaskListing,
    A2ATaskStreams,
    A2ATaskUpkeep,
    A2APushNotifications,
    A2AWireErrors,
  ],
})
export class A2AModule {}
