import { Global, Module } from '@nestjs/common';
import { AuditSink } from './audit-sink.js';
import { MemoryAuditSink } from './memory-audit.sink.js';

/** The audit sink, global because every surface records into it. In memory by default. */
@Global()
@Module({
  providers: [{ provide: AuditSink, useClass: MemoryAuditSink }],
  exports: [AuditSink],
})
export class AuditModule {}
