import type { RecordedAuditEvent } from './audit-event.js';
import type { AuditFilter } from './audit-sink.js';

/** The run an event is about, when its details name one. */
export function runIdOf(details: RecordedAuditEvent['details']): string | undefined {
  const runId = details.run_id;
  return typeof runId === 'string' ? runId : undefined;
}

/** Whether `event` is selected by `filter` (the in-memory sink's reading of AuditFilter). */
export function matchesAudit(event: RecordedAuditEvent, filter: AuditFilter): boolean {
  return (
    (filter.tenantId === undefined || event.tenantId === filter.tenantId) &&
    (filter.kind === undefined || event.kind === filter.kind) &&
    (filter.kindPrefix === undefined || event.kind.startsWith(filter.kindPrefix)) &&
    (filter.runId === undefined || runIdOf(event.details) === filter.runId) &&
    (filter.actor === undefined || event.actor === filter.actor) &&
    (filter.since === undefined || event.at >= filter.since) &&
    (filter.until === undefined || event.at < filter.until)
  );
}
