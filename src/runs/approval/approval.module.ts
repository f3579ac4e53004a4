import { Module } from '@nestjs/common';
import { GraphModule } from '../graph/graph.module.js';
import { RunsModule } from '../runs.module.js';
import { StateModule } from '../../platform/state/state.module.js';
import { ApprovalController } from './approval.controller.js';
import { ApprovalService } from './approval.service.js';

/** Human approval of paused graph nodes: POST /v1/runs/{run_id}/approve and /deny. */
@Module({
  imports: [StateModule, RunsModule, GraphModule],
  controllers: [ApprovalController],
  providers: [ApprovalService],
  exports: [ApprovalService],
})
export class ApprovalModule {}
