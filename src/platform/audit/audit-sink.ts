import type { AuditEvent, RecordedAuditEvent } from './audit-event.js';

export interface AuditQuery {
  tenantId?: string;
  kind?: string;
  limit?: number;
}

/**
 * Where audit events go (spec section 6: in memory by default). `record` is synchronous and never
 * throws, so recording can never change or fail what it records; a durable sink buffers and
 * writes in the background.
 */
export abstract class AuditSink {
  abstract record(event: AuditEvent): void;
  /** Newest first. */
  abstract list(query: AuditQuery): RecordedAuditEvent[];
}
