import { Module } from '@nestjs/common';
import { StateModule } from '../platform/state/state.module.js';
import { RunEvents } from './lifecycle/run-events.js';
import { RunMetrics } from './lifecycle/run-metrics.observer.js';
import { RunTracing } from './lifecycle/run-tracing.service.js';
import { RunRecordStore } from './record/run-record.store.js';
import { RunsController } from './runs.controller.js';

/** Run records (`/v1/runs`): what a run did, shared by every replica; run metrics. */
@Module({
  imports: [StateModule],
  controllers: [RunsController],
  providers: [RunRecordStore, RunEvents, RunMetrics, RunTracing],
  exports: [RunRecordStore, RunEvents, RunTracing],
})
export class RunsModule {}
