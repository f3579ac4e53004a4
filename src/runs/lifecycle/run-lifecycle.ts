import { Injectable } from '@nestjs/common';
import type { AuditKind } from '../../platform/audit/audit-event.js';
import { AuditSink } from '../../platform/audit/audit-sink.js';
import type { EntryWrite, JsonValue, WriteInFlight } from '../../platform/state/state-store.js';
import { Metrics } from '../../platform/telemetry/metrics.service.js';
import type { RunSpanInput } from '../../platform/telemetry/span-specs.js';
import { linkTo } from '../../platform/telemetry/tracing.service.js';
import type { RunMarks, RunStatus, StoredRun } from '../record/run-record.js';
import { runView } from '../record/run-record.mapper.js';
import { RunRecordStore } from '../record/run-record.store.js';
import { RunEventLog } from '../events/run-event-log.js';
import type { RunEventData, RunEventType } from '../events/run-event.js';
import { RunJournal } from '../events/run-journal.js';
import { RunWebhooks } from '../webhooks/run-webhooks.service.js';
import { RunEvents } from './run-events.js';
import { RunLeases } from './run-lease.js';
import { insideRun } from './run-lineage.js';
import { type RunTrace, RunTracing } from './run-tracing.service.js';

/** How an execution of a run began here: a new run, or one continuing a stored run. */
export type RunResumption = 'takeover' | 'decision';

const journal = () => RunJournal.current();

/** A record as event data (it is JSON already). */
const asData = (record: object) => record as unknown as JsonValue;

/** What observers learn of a run besides its API shape. */
const marksOf = (run: StoredRun): RunMarks => ({
  ...(run.origin !== undefined ? { origin: run.origin } : {}),
  ...(run.webhook ? { webhook: true } : {}),
});

/**
 * The problem type of a run that stopped on this replica unfinished (observers see it settle
 * `failed` with it; the run goes on from its checkpoint elsewhere).
 */
export const RUN_STOPPED_HERE = 'urn:svc:problem:run-stopped';

/** The audit kind of each status a run can settle in. */
const SETTLED_KINDS: Partial<Record<RunStatus, AuditKind>> = {
  completed: 'run.completed',
  failed: 'run.failed',
  paused: 'run.paused',
  denied: 'run.denied',
  cancelled: 'run.cancelled',
};

/**
 * The one lifecycle of every kind of run (plain and graph, whoever started it): its executions
 * as `invoke_agent` spans inside its lineage, and what observers (studio, metrics) and the audit
 * trail learn when it starts, moves on, settles or stops on this replica. Plain and graph
 * execution call only this; neither writes an event or an audit record of its own.
 */
@Injectable()
export class RunLifecycle {
  constructor(
    private readonly log: RunEventLog,
    private readonly events: RunEvents,
    private readonly audit: AuditSink,
    private readonly tracing: RunTracing,
    private readonly metrics: Metrics,
    private readonly webhooks: RunWebhooks,
    private readonly records: RunRecordStore,
    private readonly leases: RunLeases,
  ) {}

  /**
   * One execution of `run` in this process: its span (linked to the run's first one when it
   * resumes) and its lineage, so nothing it causes can start another run.
   */
  execute<T extends StoredRun>(
    run: Pick<
      StoredRun,
      'agent' | 'run_id' | 'session_id' | 'tenant_id' | 'trace_id' | 'span_id' | 'deltas'
    >,
    options: { topology?: string; resumed?: RunResumption },
    work: (trace: RunTrace) => Promise<T>,
  ): Promise<T> {
    const span: RunSpanInput = {
      agent: run.agent,
      runId: run.run_id,
      sessionId: run.session_id,
      tenantId: run.tenant_id,
      ...(options.topology !== undefined ? { topology: options.topology } : {}),
      ...(options.resumed !== undefined
        ? { resumed: options.resumed, links: linkTo(run.trace_id, run.span_id) }
        : {}),
    };
    const journal = this.log.open(run.tenant_id, run.run_id, run.deltas === true);
    return this.tracing.trace(span, (trace) =>
      insideRun(() =>
        journal.within(async () => {
          try {
            return await work(trace);
          } finally {
            // What the run wrote is in its log, and what observers and the audit trail record
            // is where every replica reads it, before its caller learns how it ended: whoever
            // acts on the answer (an approval on another replica) writes after it.
            await this.flushed(journal);
          }
        }),
      ),
    );
  }

  /** A new run was recorded and starts executing here. */
  started(run: StoredRun, details: { [key: string]: JsonValue }): void {
    const view = runView(run);
    this.events.started(view, marksOf(run));
    journal()?.emit('run.started', { run: asData(view) });
    this.audit.record({
      kind: 'run.started',
      tenantId: run.tenant_id,
      actor: run.actor,
      details: { run_id: run.run_id, agent: run.agent, ...details },
    });
  }

  /** A new run was recorded `queued`: it waits here for its session, busy with another run. */
  queued(run: StoredRun): void {
    const view = runView(run);
    this.events.queued(view, marksOf(run));
    journal()?.emit('run.queued', { run: asData(view) });
  }

  /** This process continues a stored run: one whose owner stopped, or one after a decision. */
  resumed(run: StoredRun, how: RunResumption, takeovers?: number): void {
    const view = runView(run);
    this.events.started(view, marksOf(run));
    journal()?.emit(how === 'takeover' ? 'run.taken_over' : 'run.resumed', {
      ...(takeovers !== undefined ? { takeovers } : {}),
      run: asData(view),
    });
    if (how !== 'takeover') return;
    this.metrics.recordLeaseTakeover();
    this.audit.record({
      kind: 'run.taken_over',
      tenantId: run.tenant_id,
      details: { run_id: run.run_id, ...(takeovers !== undefined ? { takeovers } : {}) },
    });
  }

  /** The run moved on: a turn or a step finished. */
  progressed(run: StoredRun): void {
    this.events.progressed(runView(run), marksOf(run));
    journal()?.emit('run.progressed', { turns: run.turns, tool_calls: run.tool_calls });
  }

  /**
   * Records the run's settled state (completed, failed, denied, cancelled, or paused for a
   * decision): its record written at `version` (conditional, like every checkpoint; a
   * StateConflictError when another owner's write stands), with its settled event, which is
   * written only if the record is (in the same transaction, unless the run's log is being
   * written at that moment), and so are the release of its lease when this process holds it,
   * its audit entry and what observers write of it (`runSettling`: the studio's loop and
   * session). With `onlyIf` the record is written only if that write holds too (a plain run's
   * last turn in its session, asked for just before: one transaction). Once the record is
   * written, observers and the run's webhook learn that it settled. Answers the record's new
   * version.
   */
  async settle(
    run: StoredRun,
    version: number,
    actor?: string,
    onlyIf?: EntryWrite,
  ): Promise<number> {
    const view = runView(run);
    const type = run.status === 'paused' ? 'run.paused' : 'run.settled';
    const log = journal();
    const lease = this.leases.heldFor(run.tenant_id, run.run_id);
    const marks = marksOf(run);
    const written = await this.records.putWith(
      run,
      version,
      (write, outcome) => {
        const recordWrite = { write, outcome };
        log?.emit(type, { run: asData(view) }, recordWrite);
        lease?.releaseWith(write);
        this.events.settling(view, marks, recordWrite);
        this.webhooks.settling(view, marks, recordWrite);
        this.auditSettled(run, actor, recordWrite);
      },
      onlyIf,
    );
    this.events.settled(view, marks);
    return written;
  }

  /** The audit trail's entry of the settled run, which goes with its settled record. */
  private auditSettled(run: StoredRun, actor: string | undefined, onlyIf: WriteInFlight): void {
    const kind = SETTLED_KINDS[run.status];
    if (!kind) return;
    const event = {
      kind,
      tenantId: run.tenant_id,
      actor: actor ?? run.actor,
      details: {
        run_id: run.run_id,
        turns: run.turns,
        tool_calls: run.tool_calls,
        ...(run.finish_reason ? { finish_reason: run.finish_reason } : {}),
        ...(run.status === 'paused' ? { pending_node: run.pending_node ?? null } : {}),
        ...(run.error ? { status: run.error.status, detail: run.error.detail } : {}),
      },
    };
    this.audit.recordWith(event, onlyIf);
  }

  /**
   * `settle` for a run nobody executes here (a cancelled run nobody was executing, or one
   * stopped by its cancellation): its settled event is written and flushed like any other.
   */
  async settleHere(run: StoredRun, version: number, actor?: string): Promise<number> {
    const here = this.log.open(run.tenant_id, run.run_id, false);
    const written = await here.within(() => this.settle(run, version, actor));
    await this.flushed(here);
    return written;
  }

  /** What `journal`, observers and the audit trail were told is where every replica reads it. */
  private async flushed(journal: RunJournal): Promise<void> {
    await Promise.all([journal.flush(), this.events.flush(), this.audit.flush()]);
  }

  /** Something happened to a run outside its execution (a cancellation was asked for). */
  async note(run: Pick<StoredRun, 'tenant_id' | 'run_id'>, type: RunEventType, data: RunEventData) {
    const journal = this.log.open(run.tenant_id, run.run_id, false);
    journal.emit(type, data);
    await journal.flush();
  }

  /**
   * The run stopped on this replica without settling (its lease was lost, the backend went
   * away, the process is shutting down): nothing is recorded (it goes on elsewhere from its
   * checkpoint), but observers must not see it running here forever.
   */
  stoppedHere(run: StoredRun, why: string): void {
    this.events.settled(
      {
        ...runView(run),
        status: 'failed',
        finish_reason: 'error',
        error: {
          status: 503,
          type: RUN_STOPPED_HERE,
          detail: `stopped on this replica (${why}); the run continues from its checkpoint`,
        },
        ended_at: new Date().toISOString(),
      },
      marksOf(run),
    );
  }
}
