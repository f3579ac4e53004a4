import { Global, Module } from '@nestjs/common';
import { AuditController } from './audit.controller.js';
import { AuditSink } from './audit-sink.js';
import { MemoryAuditSink } from './memory-audit.sink.js';

/** The audit sink, global because every surface records into it. In memory by default. */
@Global()
@Module({
  controllers: [AuditController],
  providers: [{ provide: AuditSink, useClass: MemoryAuditSink }],
  exports: [AuditSink],
})
export class AuditModule {}
