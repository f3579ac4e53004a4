import { Logger } from '@nestjs/common';
import { BackgroundWriter } from '../state/background-writer.js';
import type { StateDatabase } from '../state/state-database.service.js';
import type { WriteInFlight } from '../state/state-store.js';
import type { Metrics } from '../telemetry/metrics.service.js';
import type { AuditEvent, RecordedAuditEvent } from './audit-event.js';
import { AuditEventStore, MAX_AUDIT_INSERT, type PendingAuditEvent } from './audit-event.store.js';
import { type AuditQuery, AuditSink, MAX_AUDIT_LIST } from './audit-sink.js';

/**
 * Events held while the state backend is away (or slower than they come); beyond, new ones are
 * dropped and counted in svc_audit_events_dropped_total. About 10 MB at most.
 */
export const AUDIT_BUFFER = 20_000;
/** How long an event waits for others to share its insert (a request makes a few at once). */
const GATHER_MS = 20;

/**
 * The audit trail in the state backend: every replica writes there and reads the same trail,
 * and it outlives restarts. `record` stays synchronous and never throws: events go through a
 * BackgroundWriter (batched inserts off the request path; kept and retried through an outage).
 * A read first flushes this replica's own events, so a client reads what it just caused.
 */
export class StateAuditSink extends AuditSink {
  private readonly writer: BackgroundWriter<PendingAuditEvent>;

  constructor(
    private readonly store: AuditEventStore,
    database: StateDatabase,
    metrics?: Metrics,
  ) {
    super();
    this.writer = new BackgroundWriter({
      what: 'audit events',
      write: (batch) => store.insert(batch),
      logger: new Logger('Audit'),
      maxBatch: MAX_AUDIT_INSERT,
      maxPending: AUDIT_BUFFER,
      gatherMs: GATHER_MS,
      bind: (event, write) => ({ ...event, onlyIf: write }),
    });
    // After the HTTP server drained and before the pool closes: the last events are written.
    database.beforeClose(async () => {
      this.collectLastEvents();
      await this.writer.close();
    });
    metrics?.observeCounter(
      'svc_audit_events_dropped',
      'Audit events this process could not write to the state backend',
      () => this.writer.dropped,
    );
    metrics?.observeGauge(
      'svc_audit_events_buffered',
      'Audit events waiting in this process to be written to the state backend',
      () => this.writer.size,
    );
  }

  record(event: AuditEvent): void {
    this.writer.add({ ...event, at: event.at ?? Date.now() });
  }

  override recordWith(event: AuditEvent, onlyIf: WriteInFlight): void {
    this.writer.addWith([{ ...event, at: event.at ?? Date.now() }], onlyIf);
  }

  async list(query: AuditQuery): Promise<RecordedAuditEvent[]> {
    await this.writer.flush();
    const limit = Math.min(Math.max(query.limit ?? 100, 1), MAX_AUDIT_LIST);
    return this.store.list({ ...query, limit });
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }
}
