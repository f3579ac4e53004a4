import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import type { Topology } from '../../agents/agent-spec.js';
import type { StoredAgentSpec } from '../../agents/agent-spec.store.js';
import { AuditSink } from '../../platform/audit/audit-sink.js';
import type { GatewayConfig, RunLimitsConfig } from '../../platform/config/gateway-config.js';
import { insideRun } from '../lifecycle/run-lineage.js';
import { ChatProvider } from '../../providers/chat.types.js';
import type { ApprovalDecision } from './graph-run-state.js';
import { runError } from '../record/run-error.js';
import type { RunRecord } from '../record/run-record.js';
import { RunEvents } from '../lifecycle/run-events.js';
import { RunRecordStore, type VersionedRunRecord } from '../record/run-record.store.js';
import {
  LeaseLostError,
  StateConflictError,
  StateUnavailableError,
} from '../../platform/state/state-store.js';
import { Metrics } from '../../platform/telemetry/metrics.service.js';
import { type RunTrace, RunTracing } from '../lifecycle/run-tracing.service.js';
import type { RunSpanInput } from '../../platform/telemetry/span-specs.js';
import { Tracing, linkTo } from '../../platform/telemetry/tracing.service.js';
import { GraphEngine } from './engines/graph-engine.js';
import { ParallelEngine } from './engines/parallel.engine.js';
import { PipelineEngine } from './engines/pipeline.engine.js';
import { SupervisorEngine } from './engines/supervisor.engine.js';
import { GraphExecution, type GraphRecord } from './graph-execution.js';
import {
  type GraphRunInput,
  applyDecision,
  newGraphRecord,
  now,
  settleRecord,
} from './graph-record.js';
import { StepRunner } from './step-runner.service.js';

/** The audit kind of each status a graph run can settle in. */
const SETTLED_KINDS = {
  paused: 'run.paused',
  denied: 'run.denied',
  failed: 'run.failed',
  completed: 'run.completed',
} as const;

/** This process can no longer write the run: stop without recording anything. */
function lostTheRun(error: unknown, signal: AbortSignal): boolean {
  return (
    signal.aborted ||
    error instanceof LeaseLostError ||
    error instanceof StateConflictError ||
    error instanceof StateUnavailableError
  );
}

function isGraphRecord(record: RunRecord): record is GraphRecord {
  return record.graph !== undefined;
}

/** The span of a stored run continuing here, linked to the run's first execution. */
function resumedSpan(record: GraphRecord, resumed: RunSpanInput['resumed']): RunSpanInput {
  return {
    agent: record.agent,
    runId: record.run_id,
    sessionId: record.session_id,
    tenantId: record.tenant_id,
    topology: record.graph.topology,
    resumed,
    links: linkTo(record.trace_id, record.graph.span_id),
  };
}

/**
 * Runs agent graphs (issue 5). The caller holds the run's lease for as long as a call here lasts;
 * the state is checkpointed in the run record after every step, so any replica holding the lease
 * later (after a takeover or an approval) continues from it and never runs a completed step
 * again. A run ends `completed`, `failed` (a step failed), `denied`, or stops `paused` while a
 * node waits for a human. Each execution here is an `invoke_agent` span; the record keeps the
 * trace id of the first one, which later executions (takeover, decision) link to.
 */
@Injectable()
export class GraphRunner {
  private readonly logger = new Logger(GraphRunner.name);
  private readonly engines: Record<Topology, GraphEngine>;
  private readonly limits: RunLimitsConfig;

  constructor(
    private readonly records: RunRecordStore,
    private readonly steps: StepRunner,
    private readonly provider: ChatProvider,
    private readonly audit: AuditSink,
    private readonly events: RunEvents,
    private readonly tracing: Tracing,
    private readonly runTracing: RunTracing,
    private readonly metrics: Metrics,
    pipeline: PipelineEngine,
    parallel: ParallelEngine,
    supervisor: SupervisorEngine,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.engines = { pipeline, parallel, supervisor };
    this.limits = config.get('runLimits', { infer: true });
  }

  /** Starts a new run of `agent`; the run id must not have a record yet. */
  start(input: GraphRunInput, agent: StoredAgentSpec, signal: AbortSignal): Promise<RunRecord> {
    const sessionId = randomUUID();
    const { runId, tenantId } = input;
    const topology = agent.spec.topology;
    return this.runTracing.trace(
      { agent: agent.name, runId, sessionId, tenantId, topology },
      (trace) => this.startTraced(input, agent, sessionId, trace, signal),
    );
  }

  private async startTraced(
    input: GraphRunInput,
    agent: StoredAgentSpec,
    sessionId: string,
    trace: RunTrace,
    signal: AbortSignal,
  ): Promise<RunRecord> {
    const record = newGraphRecord(input, agent, {
      sessionId,
      traceId: trace.traceId,
      spanId: trace.spanId,
    });
    const version = await this.records.put(record, 0);
    this.audit.record({
      kind: 'run.started',
      tenantId: input.tenantId,
      actor: input.actor,
      details: { run_id: input.runId, agent: agent.name, topology: agent.spec.topology },
    });
    return this.advance({ record, version }, signal, input.actor);
  }

  /** Continues a run whose owner stopped (its lease expired) from its checkpoint. */
  takeOver(stored: VersionedRunRecord, signal: AbortSignal): Promise<RunRecord> {
    const { record } = stored;
    if (!isGraphRecord(record) || record.status !== 'running') return Promise.resolve(record);
    return this.runTracing.trace(resumedSpan(record, 'takeover'), () => {
      record.graph.takeovers += 1;
      this.metrics.recordLeaseTakeover();
      this.audit.record({
        kind: 'run.taken_over',
        tenantId: record.tenant_id,
        details: { run_id: record.run_id, takeovers: record.graph.takeovers },
      });
      return this.advance({ record, version: stored.version }, signal);
    });
  }

  /**
   * Applies a human decision on a paused run's pending node (the caller checked that it is
   * pending): approve runs the node and continues the graph; deny ends the run `denied` and
   * nothing after the node runs.
   */
  decide(
    stored: VersionedRunRecord & { record: GraphRecord },
    decision: Omit<ApprovalDecision, 'at' | 'call_id'>,
    signal: AbortSignal,
  ): Promise<RunRecord> {
    return this.runTracing.trace(resumedSpan(stored.record, 'decision'), () =>
      this.decideTraced(stored, decision, signal),
    );
  }

  private decideTraced(
    stored: VersionedRunRecord & { record: GraphRecord },
    decision: Omit<ApprovalDecision, 'at' | 'call_id'>,
    signal: AbortSignal,
  ): Promise<RunRecord> {
    const { record } = stored;
    applyDecision(record.graph, decision);
    this.audit.record({
      kind: 'approval.decided',
      tenantId: record.tenant_id,
      actor: decision.by ?? undefined,
      details: {
        run_id: record.run_id,
        node_id: decision.node_id,
        decision: decision.decision,
        ...(decision.comment !== undefined ? { comment: decision.comment } : {}),
      },
    });
    record.status = 'running';
    return this.advance(stored, signal, decision.by ?? undefined, decision.decision === 'denied');
  }

  /** Every execution of a graph (start, takeover, decision) runs inside the run's lineage. */
  private advance(
    stored: VersionedRunRecord,
    signal: AbortSignal,
    actor?: string,
    settleOnly = false,
  ): Promise<RunRecord> {
    return insideRun(() => this.advanceInside(stored, signal, actor, settleOnly));
  }

  private async advanceInside(
    stored: VersionedRunRecord,
    signal: AbortSignal,
    actor: string | undefined,
    settleOnly: boolean,
  ): Promise<RunRecord> {
    const record = stored.record as GraphRecord;
    const run = new GraphExecution(record, stored.version, signal, actor, {
      records: this.records,
      steps: this.steps,
      provider: this.provider,
      audit: this.audit,
      events: this.events,
      tracing: this.tracing,
      limits: this.limits,
    });
    this.events.started(record);
    try {
      if (!settleOnly) await this.engines[record.graph.topology].advance(run);
      await this.settle(run);
      return record;
    } catch (error) {
      if (lostTheRun(error, signal)) {
        // Nothing is recorded (the run goes on elsewhere from its checkpoint), but this
        // process's part of it ended: observers must not see it running here forever.
        const lost = runError(error);
        this.events.settled({
          ...record,
          status: 'failed',
          finish_reason: 'error',
          error: {
            ...lost,
            detail: `stopped on this replica (${signal.aborted ? 'shutting down' : lost.detail}); the run continues from its checkpoint`,
          },
          ended_at: now(),
        });
        throw error;
      }
      await this.fail(run, error);
      throw error;
    }
  }

  /** Works out where the run stands once its engine returned, and records it. */
  private async settle(run: GraphExecution): Promise<void> {
    const { record } = run;
    settleRecord(record, run.answer);
    const paused = record.status === 'paused';
    await run.checkpoint();
    this.events.settled(record);
    const kind = SETTLED_KINDS[record.status as keyof typeof SETTLED_KINDS];
    this.audit.record({
      kind,
      tenantId: record.tenant_id,
      actor: run.actor,
      details: {
        run_id: record.run_id,
        ...(paused ? { pending_node: record.pending_node } : {}),
        turns: record.turns,
        tool_calls: record.tool_calls,
      },
    });
  }

  /** Best effort: the run stopped on an error of its own (the supervisor's model failed). */
  private async fail(run: GraphExecution, error: unknown): Promise<void> {
    const { record } = run;
    record.status = 'failed';
    record.finish_reason = 'error';
    record.error = runError(error);
    record.paused = false;
    record.ended_at = now();
    this.audit.record({
      kind: 'run.failed',
      tenantId: record.tenant_id,
      actor: run.actor,
      details: { run_id: record.run_id, status: record.error.status, detail: record.error.detail },
    });
    this.events.settled(record);
    await run.checkpoint().catch((cause: unknown) => {
      this.logger.warn(`could not record failed run ${record.run_id}: ${String(cause)}`);
    });
  }
}
