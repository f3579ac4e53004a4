import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module.js';
import { StudioPageController } from './studio-page.controller.js';
import { StudioController } from './studio.controller.js';
import { StudioRecorder } from './studio.recorder.js';
import { StudioStore } from './studio.store.js';

/**
 * The studio (spec sections 2 and 4): records every run of this process in memory and serves
 * the snapshot at GET /v1/studio and the web page at /studio.
 */
@Module({
  imports: [RunsModule],
  controllers: [StudioController, StudioPageController],
  providers: [{ provide: StudioStore, useFactory: () => new StudioStore() }, StudioRecorder],
  exports: [StudioStore],
})
export class StudioModule {}
