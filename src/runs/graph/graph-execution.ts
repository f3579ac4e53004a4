import type { StepSpec } from '../../agents/agent-spec.js';
import type { ReferenceValues } from '../../agents/step-references.js';
import { AuditSink } from '../../platform/audit/audit-sink.js';
import type { ChatCompletion, ChatMessage, ChatProvider } from '../../providers/chat.types.js';
import type { GraphRunState, StepState } from './graph-run-state.js';
import type { RunFinishReason, StoredRun } from '../record/run-record.js';
import { RunJournal } from '../events/run-journal.js';
import type { RunLifecycle } from '../lifecycle/run-lifecycle.js';
import { RunRecordStore } from '../record/run-record.store.js';
import type { RunLimitsConfig } from '../../platform/config/gateway-config.js';
import { ToolCallBudget } from '../loop/tool-call-budget.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import type { ToolSpec } from '../../tools/tool.types.js';
import { ATTR_SVC_GRAPH_STEP_STATUS } from '../../platform/telemetry/semconv.js';
import { stepSpan } from '../../platform/telemetry/span-specs.js';
import { type Tracing, markFailed } from '../../platform/telemetry/tracing.service.js';
import type { StepOutcome, StepRunner } from './step-runner.service.js';
import type { RunSpending, SpendMeter } from '../lifecycle/run-spending.js';

export type GraphRecord = StoredRun & { graph: GraphRunState };

export interface ExecutionServices {
  records: RunRecordStore;
  steps: StepRunner;
  provider: ChatProvider;
  audit: AuditSink;
  lifecycle: RunLifecycle;
  tracing: Tracing;
  limits: RunLimitsConfig;
  spending: RunSpending;
}

const now = () => new Date().toISOString();

/**
 * The most a step's output may weigh (as JSON) in the checkpoint, which is rewritten around every
 * step: up to 100 steps of this keep a run record within a few MiB.
 */
export const MAX_STEP_OUTPUT_BYTES = 64 * 1024;

/** An outcome whose output is too large to checkpoint becomes a failure that says so. */
function keepable(outcome: StepOutcome): StepOutcome {
  if (!outcome.ok) return outcome;
  const size = Buffer.byteLength(JSON.stringify(outcome.output ?? null));
  if (size <= MAX_STEP_OUTPUT_BYTES) return outcome;
  return {
    ...outcome,
    ok: false,
    output: undefined,
    error: `the step's output is ${size} bytes; a graph run keeps at most ${MAX_STEP_OUTPUT_BYTES} per step`,
  };
}
const BLOCKING = new Set(['failed', 'skipped', 'denied']);

/**
 * One process's turn at a graph run: the state it works on, and the only ways engines change it.
 * Every change an engine makes is followed by a checkpoint: a conditional write of the run record
 * at the version this process last wrote, so a process that lost the run can never overwrite the
 * new owner's state. Checkpoints are written one after another even when steps run in parallel.
 */
export class GraphExecution {
  /** Set by an engine that produces the run's answer itself (the supervisor). */
  answer?: { text: string; finishReason: Exclude<RunFinishReason, 'error'> };
  private writes: Promise<unknown> = Promise.resolve();
  private workerTools?: Promise<ToolSpec[]>;
  readonly references: ReferenceValues;
  /**
   * The run's tool calls (tool steps and agent steps' calls), counted on from the checkpoint's
   * `tool_calls`, so a takeover or a decision does not start the count afresh.
   */
  readonly toolCalls: ToolCallBudget;
  /** Every model call of the run (the supervisor's, agent steps'): into the ledger and `usage`. */
  readonly meter: SpendMeter;

  constructor(
    readonly record: GraphRecord,
    private version: number,
    readonly signal: AbortSignal,
    readonly actor: string | undefined,
    private readonly services: ExecutionServices,
  ) {
    this.references = {
      input: record.graph.input,
      output: (id) => this.state.steps.find((step) => step.id === id)?.output,
    };
    this.toolCalls = new ToolCallBudget(services.limits, record.tool_calls);
    this.meter = services.spending.meter(record);
  }

  get limits(): RunLimitsConfig {
    return this.services.limits;
  }

  get state(): GraphRunState {
    return this.record.graph;
  }

  step(id: string): StepState {
    const step = this.state.steps.find((candidate) => candidate.id === id);
    if (!step) throw new Error(`graph run ${this.record.run_id} has no step "${id}"`);
    return step;
  }

  spec(id: string): StepSpec {
    const spec = this.state.definition.find((candidate) => candidate.id === id);
    if (!spec) throw new Error(`graph run ${this.record.run_id} has no step "${id}"`);
    return spec;
  }

  checkpoint(): Promise<void> {
    return this.write((record, version) => this.services.records.put(record, version));
  }

  /** The last checkpoint: the record settled, written with its settled event (RunLifecycle). */
  settle(): Promise<void> {
    return this.write((record, version) =>
      this.services.lifecycle.settle(record, version, this.actor),
    );
  }

  /** Writes the record after the writes before it, at the version this process last wrote. */
  private write(put: (record: GraphRecord, version: number) => Promise<number>): Promise<void> {
    const write = this.writes.then(async () => {
      this.signal.throwIfAborted();
      this.version = await put(this.record, this.version);
    });
    this.writes = write.catch(() => undefined);
    return write;
  }

  /** True when every step `id` depends on has completed. */
  dependenciesDone(id: string): boolean {
    return (this.spec(id).depends_on ?? []).every((dep) => this.step(dep).status === 'completed');
  }

  /**
   * For a step with `require_approval` that has no approval yet (for a supervisor: for this
   * call), records the pending node, checkpoints and answers true: the step must not run. The
   * step's action is never executed before a decision.
   */
  async awaitsApproval(id: string, callId?: string): Promise<boolean> {
    if (!this.spec(id).require_approval) return false;
    const step = this.step(id);
    const approved =
      callId === undefined
        ? step.approval === 'approved'
        : this.state.decisions.some((d) => d.call_id === callId && d.decision === 'approved');
    if (approved) return false;
    step.status = 'awaiting_approval';
    step.approval = 'pending';
    if (!this.state.pending.some((pending) => pending.node_id === id)) {
      const call = this.state.supervisor?.queue.find((queued) => queued.id === callId);
      this.state.pending.push({ node_id: id, requested_at: now(), ...(call ? { call } : {}) });
    }
    await this.checkpoint();
    RunJournal.current()?.emit('approval.requested', {
      node: id,
      ...(callId !== undefined ? { call_id: callId } : {}),
    });
    return true;
  }

  /**
   * Runs a step, checkpointing it as `running` before and with its outcome after; one
   * `graph.step {id}` span, failed when the step fails.
   */
  /**
   * `callId` is the supervisor's call of the step as a worker (a worker may be called again);
   * with the run and step ids it makes the step's Idempotency-Key, the same when a takeover
   * runs the step again.
   */
  async runStep(id: string, callArguments?: JsonValue, callId?: string): Promise<StepState> {
    const step = this.step(id);
    const spec = stepSpan({
      id,
      kind: step.kind,
      topology: this.state.topology,
      attempt: step.runs + 1,
    });
    return this.services.tracing.inSpan(spec, async (span) => {
      const key = [this.record.run_id, id, ...(callId !== undefined ? [callId] : [])].join('/');
      await this.runStepTraced(step, key, callArguments);
      span.setAttribute(ATTR_SVC_GRAPH_STEP_STATUS, step.status);
      if (step.status === 'failed') markFailed(span, 'step_failed');
      return step;
    });
  }

  private async runStepTraced(
    step: StepState,
    idempotencyKey: string,
    callArguments?: JsonValue,
  ): Promise<void> {
    const id = step.id;
    step.status = 'running';
    step.runs += 1;
    step.started_at = now();
    delete step.ended_at;
    delete step.error;
    await this.checkpoint();
    const journal = RunJournal.current();
    journal?.emit('step.started', { step: id, kind: step.kind, attempt: step.runs });
    const outcome = keepable(
      await RunJournal.inStep(id, () =>
        this.services.steps.run(this.spec(id), {
          tenantId: this.record.tenant_id,
          actor: this.actor,
          model: this.state.model,
          maxTurns: this.state.max_turns,
          signal: this.signal,
          references: this.references,
          budget: this.toolCalls,
          idempotencyKey,
          callArguments,
          meter: this.meter,
        }),
      ),
    );
    step.status = outcome.ok ? 'completed' : 'failed';
    if (outcome.ok) step.output = outcome.output ?? null;
    else step.error = outcome.error ?? 'the step failed';
    step.ended_at = now();
    this.record.turns += outcome.turns;
    this.record.tool_calls += outcome.toolCalls;
    await this.checkpoint();
    journal?.emit('step.finished', {
      step: id,
      status: step.status,
      ...(step.error !== undefined ? { error: step.error } : {}),
    });
    this.services.lifecycle.progressed(this.record);
    this.services.audit.record({
      kind: outcome.ok ? 'step.completed' : 'step.failed',
      tenantId: this.record.tenant_id,
      actor: this.actor,
      details: {
        run_id: this.record.run_id,
        step: id,
        ...(outcome.ok ? {} : { error: step.error ?? '' }),
      },
    });
  }

  /** Marks steps that can no longer run (a dependency failed, was skipped or denied) skipped. */
  skipBlocked(): void {
    for (let changed = true; changed;) {
      changed = false;
      for (const step of this.state.steps) {
        if (step.status !== 'pending') continue;
        const deps = this.spec(step.id).depends_on ?? [];
        if (deps.some((dep) => BLOCKING.has(this.step(dep).status))) {
          step.status = 'skipped';
          changed = true;
        }
      }
    }
  }

  /** Skips every step that has not started (a pipeline stops at its first failure). */
  skipRest(): void {
    for (const step of this.state.steps) if (step.status === 'pending') step.status = 'skipped';
  }

  /** The supervisor's model call; its usage is metered before the caller acts on it. */
  async complete(messages: ChatMessage[], tools: ToolSpec[]): Promise<ChatCompletion> {
    const completion = await this.services.provider.complete(
      { messages, tools, model: this.state.model, toolset: 'supervisor' },
      { signal: this.signal },
    );
    if (completion.usage) await this.meter.spent(this.state.model, completion.usage);
    return completion;
  }

  /** The supervisor's workers as tools, looked up once per execution rather than every turn. */
  workers(): Promise<ToolSpec[]> {
    this.workerTools ??= this.services.steps
      .workers(this.record.tenant_id, this.state.definition)
      .catch((error: unknown) => {
        this.workerTools = undefined; // a failed lookup is tried again next turn
        throw error;
      });
    return this.workerTools;
  }
}
