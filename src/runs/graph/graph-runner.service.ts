import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Topology } from '../../agents/agent-spec.js';
import type { StoredAgentSpec } from '../../agents/agent-spec.store.js';
import { AuditSink } from '../../platform/audit/audit-sink.js';
import type { GatewayConfig, RunLimitsConfig } from '../../platform/config/gateway-config.js';
import { Tracing } from '../../platform/telemetry/tracing.service.js';
import { ChatProvider } from '../../providers/chat.types.js';
import { RunJournal } from '../events/run-journal.js';
import type { RunLease } from '../lifecycle/run-lease.js';
import { RunLifecycle, type RunResumption } from '../lifecycle/run-lifecycle.js';
import { RunSpending } from '../lifecycle/run-spending.js';
import { stoppedReason } from '../lifecycle/run-stop.js';
import { runError } from '../record/run-error.js';
import type { StoredRun } from '../record/run-record.js';
import { runView } from '../record/run-record.mapper.js';
import { RunRecordStore, type VersionedRun } from '../record/run-record.store.js';
import { GraphEngine } from './engines/graph-engine.js';
import { ParallelEngine } from './engines/parallel.engine.js';
import { PipelineEngine } from './engines/pipeline.engine.js';
import { SupervisorEngine } from './engines/supervisor.engine.js';
import { GraphExecution, type GraphRecord } from './graph-execution.js';
import type { ApprovalDecision } from './graph-run-state.js';
import {
  type GraphRunInput,
  applyDecision,
  newGraphRecord,
  now,
  settleRecord,
} from './graph-record.js';
import { StepRunner } from './step-runner.service.js';
import { newRecordId } from '../../platform/ids/new-record-id.js';

export function isGraphRun(run: StoredRun): run is GraphRecord {
  return run.graph !== undefined;
}

/**
 * Runs agent graphs (issue 5). The caller holds the run's lease for as long as a call here lasts;
 * the state is checkpointed in the run record around every step, so any replica holding the lease
 * later (after a takeover or an approval) continues from it and never runs a completed step
 * again. A run ends `completed`, `failed` (a step failed), `denied`, or stops `paused` while a
 * node waits for a human. Starting, resuming and settling go through RunLifecycle like every
 * other run; a run that cannot go on here (lease lost, backend away, shutdown) throws and keeps
 * its checkpoint.
 */
@Injectable()
export class GraphRunner {
  private readonly engines: Record<Topology, GraphEngine>;
  private readonly limits: RunLimitsConfig;

  constructor(
    private readonly records: RunRecordStore,
    private readonly steps: StepRunner,
    private readonly provider: ChatProvider,
    private readonly audit: AuditSink,
    private readonly lifecycle: RunLifecycle,
    private readonly tracing: Tracing,
    private readonly spending: RunSpending,
    pipeline: PipelineEngine,
    parallel: ParallelEngine,
    supervisor: SupervisorEngine,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.engines = { pipeline, parallel, supervisor };
    this.limits = config.get('runLimits', { infer: true });
  }

  /** Records a new run of `agent` (the run id must not have a record yet) and executes it. */
  start(input: GraphRunInput, agent: StoredAgentSpec, lease: RunLease): Promise<StoredRun> {
    const first = {
      agent: agent.name,
      run_id: input.runId,
      session_id: newRecordId(),
      tenant_id: input.tenantId,
      trace_id: null,
      ...(input.deltas ? { deltas: true } : {}),
    };
    return this.lifecycle.execute(first, { topology: agent.spec.topology }, async (trace) => {
      const record = newGraphRecord(input, agent, {
        sessionId: first.session_id,
        traceId: trace.traceId,
        spanId: trace.spanId,
      });
      if (input.deltas) record.deltas = true;
      const version = await this.records.create(record);
      await lease.claimed; // a new run's lease is claimed with its first record
      this.spending.started(record, input.model);
      this.lifecycle.started(record, { topology: agent.spec.topology });
      input.onRecorded?.(runView(record));
      return this.advance({ run: record, version }, lease.signal, input.actor);
    });
  }

  /** Continues a run whose owner stopped (its lease expired) from its checkpoint. */
  resume(stored: VersionedRun & { run: GraphRecord }, lease: RunLease): Promise<StoredRun> {
    return this.continueRun(stored, 'takeover', lease, (run) => {
      run.graph.takeovers += 1;
      this.lifecycle.resumed(run, 'takeover', run.graph.takeovers);
    });
  }

  /**
   * Applies a human decision on a paused run's pending node (the caller checked that it is
   * pending): approve runs the node and continues the graph; deny ends the run `denied` and
   * nothing after the node runs.
   */
  decide(
    stored: VersionedRun & { run: GraphRecord },
    decision: Omit<ApprovalDecision, 'at' | 'call_id'>,
    lease: RunLease,
  ): Promise<StoredRun> {
    return this.continueRun(
      stored,
      'decision',
      lease,
      (run) => {
        applyDecision(run.graph, decision);
        this.audit.record({
          kind: 'approval.decided',
          tenantId: run.tenant_id,
          actor: decision.by ?? undefined,
          details: {
            run_id: run.run_id,
            node_id: decision.node_id,
            decision: decision.decision,
            ...(decision.comment !== undefined ? { comment: decision.comment } : {}),
          },
        });
        run.status = 'running';
        RunJournal.current()?.emit('approval.decided', {
          node: decision.node_id,
          decision: decision.decision,
          by: decision.by ?? null,
          ...(decision.comment !== undefined ? { comment: decision.comment } : {}),
        });
        this.lifecycle.resumed(run, 'decision');
      },
      decision.by ?? undefined,
      decision.decision === 'denied',
    );
  }

  private continueRun(
    stored: VersionedRun & { run: GraphRecord },
    how: RunResumption,
    lease: RunLease,
    before: (run: GraphRecord) => void,
    actor?: string,
    settleOnly = false,
  ): Promise<StoredRun> {
    const { run } = stored;
    if (how === 'takeover' && run.status !== 'running') return Promise.resolve(run);
    return this.lifecycle.execute(run, { topology: run.graph.topology, resumed: how }, () => {
      before(run);
      return this.advance(stored, lease.signal, actor, settleOnly);
    });
  }

  private async advance(
    stored: VersionedRun,
    signal: AbortSignal,
    actor: string | undefined,
    settleOnly = false,
  ): Promise<StoredRun> {
    const record = stored.run as GraphRecord;
    const run = new GraphExecution(record, stored.version, signal, actor ?? record.actor, {
      records: this.records,
      steps: this.steps,
      provider: this.provider,
      audit: this.audit,
      lifecycle: this.lifecycle,
      tracing: this.tracing,
      limits: this.limits,
      spending: this.spending,
    });
    try {
      if (!settleOnly) await this.engines[record.graph.topology].advance(run);
      settleRecord(record, run.answer);
      await run.settle();
      return record;
    } catch (error) {
      const stopped = stoppedReason(error, signal);
      if (stopped !== null) {
        this.lifecycle.stoppedHere(record, stopped);
        throw error;
      }
      return this.fail(run, error);
    }
  }

  /**
   * The run failed on its own (the supervisor's model failed): recorded `failed`. If even that
   * cannot be written, the write's error propagates and the run keeps its checkpoint.
   */
  private async fail(run: GraphExecution, error: unknown): Promise<StoredRun> {
    const { record } = run;
    record.status = 'failed';
    record.finish_reason = 'error';
    record.error = runError(error);
    record.paused = false;
    record.ended_at = now();
    await run.settle();
    return record;
  }
}
