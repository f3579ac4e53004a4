import type { WriteInFlight } from '../state/state-store.js';
import type { AuditEvent, RecordedAuditEvent } from './audit-event.js';

/** Events one page of GET /v1/audit holds at most. */
export const MAX_AUDIT_PAGE = 1_000;
/** Events one `list` answers at most: a page and one more, which tells that another follows. */
export const MAX_AUDIT_LIST = MAX_AUDIT_PAGE + 1;

/** Which events: every field narrows the selection; none selects every event. */
export interface AuditFilter {
  /** One tenant's events only; unset: every tenant's and those of no tenant. */
  tenantId?: string;
  /** Exactly this kind (`run.completed`). */
  kind?: string;
  /** Kinds that start with this (`run.` for `run.*`). */
  kindPrefix?: string;
  /** Events about this run (`details.run_id`). */
  runId?: string;
  actor?: string;
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
}

export interface AuditQuery extends AuditFilter {
  /** 1 to MAX_AUDIT_LIST, default 100. */
  limit?: number;
  /** Only events with a smaller id (older): where the previous page ended. */
  beforeId?: number;
}

/**
 * Where audit events go (spec section 6: in memory by default; the state backend when replicas
 * share it, CONTRACT 10). `record` is synchronous and never throws, so recording can never
 * change or fail what it records; a durable sink buffers and writes in the background.
 */
export abstract class AuditSink {
  private readonly closeHooks: Array<() => void> = [];

  abstract record(event: AuditEvent): void;

  /**
   * `record` for an event that happened only if a write just asked for holds (a run settled:
   * its settled record, see WriteInFlight). Here it is recorded once that write is done; a sink
   * in the state backend sends it with the write, in its transaction.
   */
  recordWith(event: AuditEvent, onlyIf: WriteInFlight): void {
    onlyIf.outcome.then(
      () => this.record(event),
      () => undefined,
    );
  }

  /** Newest first (ids decrease), at most `limit`. */
  abstract list(query: AuditQuery): Promise<RecordedAuditEvent[]>;

  /**
   * Resolves once what was recorded before is where every replica reads it (bounded: never
   * through an outage of the state backend).
   */
  abstract flush(): Promise<void>;

  /**
   * Something that holds events back (the summary of failed authentications) hands them over
   * in `hook` at shutdown, before the sink writes for the last time.
   */
  beforeClose(hook: () => void): void {
    this.closeHooks.push(hook);
  }

  /** Runs the close hooks; a hook that throws loses its own events only. */
  protected collectLastEvents(): void {
    for (const hook of this.closeHooks.splice(0)) {
      try {
        hook();
      } catch {
        // Recording never fails; a hook that does has nothing left to give.
      }
    }
  }
}
