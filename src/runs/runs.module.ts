import { Module } from '@nestjs/common';
import { StateModule } from '../state/state.module.js';
import { RunEvents } from './run-events.js';
import { RunMetrics } from './run-metrics.observer.js';
import { RunRecordStore } from './run-record.store.js';
import { RunsController } from './runs.controller.js';

/** Run records (`/v1/runs`): what a run did, shared by every replica; run metrics. */
@Module({
  imports: [StateModule],
  controllers: [RunsController],
  providers: [RunRecordStore, RunEvents, RunMetrics],
  exports: [RunRecordStore, RunEvents],
})
export class RunsModule {}
