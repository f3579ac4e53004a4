import { Injectable, Logger } from '@nestjs/common';
import type { AuditEvent, RecordedAuditEvent } from './audit-event.js';
import { type AuditQuery, AuditSink } from './audit-sink.js';

/** How many events the in-memory sink keeps; the oldest are dropped first. */
export const MEMORY_AUDIT_CAPACITY = 10_000;
const MAX_LIST = 1_000;

/** A bounded ring buffer of audit events (the default sink). */
@Injectable()
export class MemoryAuditSink extends AuditSink {
  private readonly logger = new Logger('Audit');
  private readonly events: Array<RecordedAuditEvent | undefined> = new Array<undefined>(
    MEMORY_AUDIT_CAPACITY,
  );
  private next = 0;

  record(event: AuditEvent): void {
    try {
      const id = this.next++;
      this.events[id % MEMORY_AUDIT_CAPACITY] = { ...event, id, at: event.at ?? Date.now() };
    } catch (error) {
      this.logger.warn(`audit event dropped: ${String(error)}`);
    }
  }

  list({ tenantId, kind, limit = 100 }: AuditQuery): RecordedAuditEvent[] {
    const wanted = Math.min(Math.max(limit, 1), MAX_LIST);
    const found: RecordedAuditEvent[] = [];
    const oldest = Math.max(0, this.next - MEMORY_AUDIT_CAPACITY);
    for (let id = this.next - 1; id >= oldest && found.length < wanted; id--) {
      const event = this.events[id % MEMORY_AUDIT_CAPACITY];
      if (!event) continue;
      if (tenantId !== undefined && event.tenantId !== tenantId) continue;
      if (kind !== undefined && event.kind !== kind) continue;
      found.push(event);
    }
    return found;
  }
}
