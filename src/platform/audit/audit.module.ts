import { Global, Logger, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../config/gateway-config.js';
import { StateDatabase } from '../state/state-database.service.js';
import { StateModule } from '../state/state.module.js';
import { Metrics } from '../telemetry/metrics.service.js';
import { AuditEventStore } from './audit-event.store.js';
import { AuditRetention } from './audit-retention.js';
import { AuditSink } from './audit-sink.js';
import { AuditController } from './audit.controller.js';
import { MemoryAuditSink } from './memory-audit.sink.js';
import { StateAuditSink } from './state-audit.sink.js';

/**
 * The audit sink, global because every surface records into it: in memory (SVC_AUDIT_STORE
 * `memory`, the default on sqlite) or in the state backend (`state`, the default on PostgreSQL).
 */
@Global()
@Module({
  imports: [StateModule],
  controllers: [AuditController],
  providers: [
    AuditEventStore,
    AuditRetention,
    {
      provide: AuditSink,
      useFactory: (
        config: ConfigService<GatewayConfig, true>,
        store: AuditEventStore,
        database: StateDatabase,
        metrics?: Metrics,
      ): AuditSink => {
        if (config.get('audit', { infer: true }).store === 'state') {
          return new StateAuditSink(store, database, metrics);
        }
        if (database.backend === 'postgres') {
          new Logger('Audit').warn(
            'SVC_AUDIT_STORE=memory on PostgreSQL: each replica keeps and shows only its own audit events, lost on restart',
          );
        }
        return new MemoryAuditSink(config);
      },
      inject: [ConfigService, AuditEventStore, StateDatabase, { token: Metrics, optional: true }],
    },
  ],
  exports: [AuditSink],
})
export class AuditModule {}
