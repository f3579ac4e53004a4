import { Logger, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { StateDatabase } from '../platform/state/state-database.service.js';
import { StateModule } from '../platform/state/state.module.js';
import { Metrics } from '../platform/telemetry/metrics.service.js';
import { RunsModule } from '../runs/runs.module.js';
import { MemoryStudioStore } from './memory-studio.store.js';
import { StateStudioStore } from './state-studio.store.js';
import { StudioPageController } from './studio-page.controller.js';
import { StudioRetention } from './studio-retention.js';
import { StudioTables } from './studio-tables.js';
import { StudioController } from './studio.controller.js';
import { StudioRecorder } from './studio.recorder.js';
import { StudioStore } from './studio.store.js';

/**
 * The studio (spec sections 2 and 4): records every run of this process, in memory
 * (SVC_STUDIO_STORE `memory`, the default on sqlite) or in the state backend (`state`, the
 * default on PostgreSQL), and serves the snapshot at GET /v1/studio and the page at /studio.
 */
@Module({
  imports: [RunsModule, StateModule],
  controllers: [StudioController, StudioPageController],
  providers: [
    StudioTables,
    StudioRetention,
    {
      provide: StudioStore,
      useFactory: (
        config: ConfigService<GatewayConfig, true>,
        tables: StudioTables,
        database: StateDatabase,
        metrics?: Metrics,
      ): StudioStore => {
        if (config.get('studio', { infer: true }).store === 'state') {
          return new StateStudioStore(tables, database, metrics);
        }
        if (database.backend === 'postgres') {
          new Logger('Studio').warn(
            'SVC_STUDIO_STORE=memory on PostgreSQL: each replica shows only the runs it executed, lost on restart',
          );
        }
        return new MemoryStudioStore();
      },
      inject: [ConfigService, StudioTables, StateDatabase, { token: Metrics, optional: true }],
    },
    StudioRecorder,
  ],
  exports: [StudioStore],
})
export class StudioModule {}
