import { Module } from '@nestjs/common';
import { LoopModule } from '../loop/loop.module.js';
import { ProvidersModule } from '../../providers/providers.module.js';
import { RunsModule } from '../runs.module.js';
import { StateModule } from '../../platform/state/state.module.js';
import { ToolsModule } from '../../tools/tools.module.js';
import { ParallelEngine } from './engines/parallel.engine.js';
import { PipelineEngine } from './engines/pipeline.engine.js';
import { SupervisorEngine } from './engines/supervisor.engine.js';
import { GraphRunner } from './graph-runner.service.js';
import { StepRunner } from './step-runner.service.js';

/** The graph runner: an engine per topology, the step runner, checkpoints in the run record. */
@Module({
  imports: [StateModule, ProvidersModule, ToolsModule, LoopModule, RunsModule],
  providers: [PipelineEngine, ParallelEngine, SupervisorEngine, StepRunner, GraphRunner],
  exports: [GraphRunner],
})
export class GraphModule {}
