import { describe, expect, it } from '@jest/globals';
import type { StepSpec, Topology } from '../../../agents/agent-spec.js';
import type { AuditSink } from '../../../platform/audit/audit-sink.js';
import type { RunLimitsConfig } from '../../../platform/config/gateway-config.js';
import type {
  ChatCompletion,
  ChatProvider,
  ChatRequest,
  ChatUsage,
} from '../../../providers/chat.types.js';
import type { SupervisorState } from '../graph-run-state.js';
import type { RunLifecycle } from '../../lifecycle/run-lifecycle.js';
import type { RunSpending, SpendMeter } from '../../lifecycle/run-spending.js';
import type { RunRecordStore } from '../../record/run-record.store.js';
import type { Tracing } from '../../../platform/telemetry/tracing.service.js';
import { ToolCallLimitExceeded } from '../../loop/tool-call-budget.js';
import { GraphExecution, type GraphRecord, MAX_STEP_OUTPUT_BYTES } from '../graph-execution.js';
import type { StepContext, StepOutcome, StepRunner } from '../step-runner.service.js';
import { ParallelEngine } from './parallel.engine.js';
import { PipelineEngine } from './pipeline.engine.js';
import { SupervisorEngine } from './supervisor.engine.js';

const LIMITS: RunLimitsConfig = {
  maxToolCallsPerTurn: 32,
  maxToolCallsPerRun: 256,
  sessionMaxBytes: 1024 * 1024,
  toolResultMaxBytes: 32 * 1024,
};

/** A graph run on fakes: steps answer from `outcomes` (default: ok with `<id>-out`). */
function execution(
  topology: Topology,
  definition: StepSpec[],
  options: {
    outcomes?: Record<string, StepOutcome>;
    model?: (request: ChatRequest, n: number) => ChatCompletion;
    supervisor?: Partial<SupervisorState>;
    limits?: Partial<RunLimitsConfig>;
    /** Tool calls the checkpoint already counts. */
    toolCalls?: number;
  } = {},
) {
  const ran: Array<{ id: string; args: unknown }> = [];
  const meters: Array<SpendMeter | undefined> = [];
  const spent: Array<{ model: string | undefined; tokens: number }> = [];
  const checkpoints: string[] = [];
  const requests: ChatRequest[] = [];
  const steps = {
    run: (step: StepSpec, context: StepContext) => {
      ran.push({ id: step.id, args: context.callArguments });
      meters.push(context.meter);
      return Promise.resolve(
        options.outcomes?.[step.id] ?? {
          ok: true,
          output: `${step.id}-out`,
          turns: 0,
          toolCalls: 1,
        },
      );
    },
    workers: (_tenant: string, specs: readonly StepSpec[]) =>
      Promise.resolve(
        specs.map((s) => ({
          name: s.id,
          description: '',
          parameters: { type: 'object' as const },
        })),
      ),
  } as unknown as StepRunner;
  const provider = {
    kind: 'fake',
    complete: (request: ChatRequest) => {
      requests.push(structuredClone(request));
      return Promise.resolve(options.model?.(request, requests.length - 1) ?? answer('done'));
    },
  } as unknown as ChatProvider;
  let version = 1;
  const records = {
    put: (record: GraphRecord) => {
      checkpoints.push(record.graph.steps.map((s) => `${s.id}:${s.status}`).join(','));
      return Promise.resolve(++version);
    },
  } as unknown as RunRecordStore;
  const record: GraphRecord = {
    format: 2,
    run_id: 'r1',
    session_id: 's1',
    tenant_id: 't',
    agent: 'g',
    status: 'running',
    text: '',
    finish_reason: null,
    turns: 0,
    tool_calls: options.toolCalls ?? 0,
    messages: [],
    trace_id: null,
    started_at: '',
    ended_at: null,
    graph: {
      topology,
      agent_version: 1,
      input: 'in',
      max_turns: 10,
      definition,
      steps: definition.map((s) => ({ id: s.id, kind: s.kind, status: 'pending', runs: 0 })),
      pending: [],
      decisions: [],
      takeovers: 0,
      ...(topology === 'supervisor'
        ? {
            supervisor: {
              budget: 2,
              used: 0,
              turns: 0,
              messages: [{ role: 'user' as const, content: 'in' }],
              queue: [],
              ...options.supervisor,
            },
          }
        : {}),
    },
  };
  const audit = { record: () => undefined, list: () => [] } as unknown as AuditSink;
  // Tracing off: every span's work simply runs.
  const tracing = {
    inSpan: (_spec: unknown, work: (span: unknown) => Promise<unknown>) =>
      work({ setAttribute: () => undefined, setStatus: () => undefined }),
  } as unknown as Tracing;
  const run = new GraphExecution(record, 1, new AbortController().signal, undefined, {
    records,
    steps,
    provider,
    audit,
    lifecycle: { progressed: () => undefined } as unknown as RunLifecycle,
    tracing,
    limits: { ...LIMITS, ...options.limits },
    spending: {
      meter: (): SpendMeter => {
        const spend = (model: string | undefined, usage: ChatUsage) => {
          spent.push({
            model,
            tokens: (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0),
          });
          return Promise.resolve();
        };
        return { spent: spend, spentWith: (model, usage, act) => spend(model, usage).then(act) };
      },
    } as unknown as RunSpending,
  });
  const status = () => Object.fromEntries(record.graph.steps.map((s) => [s.id, s.status]));
  return { run, record, ran, meters, spent, checkpoints, requests, status };
}

const tool = (id: string, extra: Partial<StepSpec> = {}): StepSpec => ({
  id,
  kind: 'tool',
  tool: 'x',
  ...extra,
});
const answer = (content: string): ChatCompletion => ({
  message: { role: 'assistant', content },
  finishReason: 'stop',
});
const calls = (...names: string[]): ChatCompletion => ({
  message: {
    role: 'assistant',
    content: '',
    tool_calls: names.map((name, i) => ({ id: `${name}-${i}`, name, arguments: { i } })),
  },
  finishReason: 'tool_calls',
});
const failed: StepOutcome = { ok: false, error: 'boom', turns: 0, toolCalls: 1 };

describe('PipelineEngine', () => {
  it('runs in dependency order, checkpointing each step before and after', async () => {
    const x = execution('pipeline', [tool('b', { depends_on: ['a'] }), tool('a')]);
    await new PipelineEngine().advance(x.run);
    expect(x.ran.map((r) => r.id)).toEqual(['a', 'b']);
    expect(x.checkpoints).toEqual([
      'b:pending,a:running',
      'b:pending,a:completed',
      'b:running,a:completed',
      'b:completed,a:completed',
    ]);
  });

  it('skips what follows a failure and stops before a node that needs approval', async () => {
    const x = execution('pipeline', [tool('a'), tool('b'), tool('c')], { outcomes: { b: failed } });
    await new PipelineEngine().advance(x.run);
    expect(x.status()).toEqual({ a: 'completed', b: 'failed', c: 'skipped' });
    const y = execution('pipeline', [tool('a'), tool('b', { require_approval: true }), tool('c')]);
    await new PipelineEngine().advance(y.run);
    expect(y.status()).toEqual({ a: 'completed', b: 'awaiting_approval', c: 'pending' });
    expect(y.record.graph.pending.map((p) => p.node_id)).toEqual(['b']);
    expect(y.ran.map((r) => r.id)).toEqual(['a']);
  });

  it('re-runs a step left running by a dead owner, never a completed one', async () => {
    const x = execution('pipeline', [tool('a'), tool('b'), tool('c')]);
    x.record.graph.steps[0].status = 'completed';
    x.record.graph.steps[1].status = 'running';
    await new PipelineEngine().advance(x.run);
    expect(x.ran.map((r) => r.id)).toEqual(['b', 'c']);
  });

  it('fails a step whose output is too large to checkpoint, naming the limit', async () => {
    const huge: StepOutcome = {
      ok: true,
      output: 'x'.repeat(MAX_STEP_OUTPUT_BYTES),
      turns: 0,
      toolCalls: 1,
    };
    const x = execution('pipeline', [tool('a'), tool('b')], { outcomes: { a: huge } });
    await new PipelineEngine().advance(x.run);
    expect(x.status()).toEqual({ a: 'failed', b: 'skipped' });
    expect(x.record.graph.steps[0].output).toBeUndefined();
    expect(x.record.graph.steps[0].error).toMatch(/at most 65536 per step/);
  });
});

describe('ParallelEngine', () => {
  it('skips only the dependants of a failed step', async () => {
    const x = execution(
      'parallel',
      [tool('a'), tool('b', { depends_on: ['a'] }), tool('c', { depends_on: ['b'] }), tool('d')],
      { outcomes: { a: failed } },
    );
    await new ParallelEngine().advance(x.run);
    expect(x.status()).toEqual({ a: 'failed', b: 'skipped', c: 'skipped', d: 'completed' });
  });

  it('keeps running independent branches while a node waits for approval', async () => {
    const x = execution('parallel', [
      tool('gate', { require_approval: true }),
      tool('after', { depends_on: ['gate'] }),
      tool('free'),
    ]);
    await new ParallelEngine().advance(x.run);
    expect(x.status()).toEqual({ gate: 'awaiting_approval', after: 'pending', free: 'completed' });
  });
});

describe('SupervisorEngine', () => {
  it('never starts more worker calls than the budget and then offers no workers', async () => {
    const x = execution('supervisor', [tool('w')], { model: () => calls('w', 'w', 'w') });
    await new SupervisorEngine().advance(x.run);
    expect(x.ran).toHaveLength(2);
    expect(x.record.graph.supervisor?.used).toBe(2);
    expect(x.requests.map((r) => r.tools.length)).toEqual([1, ...Array<number>(9).fill(0)]);
    expect(x.run.answer?.finishReason).toBe('max_turns');
    const refused = x.record.graph.supervisor?.messages.filter((m) => m.content.includes('budget'));
    expect(refused?.length).toBeGreaterThan(0);
  });

  it("meters the supervisor's model calls and hands the run's meter to every step", async () => {
    const x = execution('supervisor', [tool('w')], {
      model: (_request, n) => ({
        ...(n === 0 ? calls('w') : answer('done')),
        usage: { prompt_tokens: 10 * (n + 1), completion_tokens: 1 },
      }),
    });
    x.record.graph.model = 'boss';
    await new SupervisorEngine().advance(x.run);
    expect(x.spent).toEqual([
      { model: 'boss', tokens: 11 },
      { model: 'boss', tokens: 21 },
    ]);
    expect(x.meters).toEqual([x.run.meter]);
  });

  it('does not count a call again when it re-runs after a takeover', async () => {
    const call = { id: 'c1', name: 'w', arguments: { q: 1 } };
    const x = execution('supervisor', [tool('w')], {
      supervisor: { budget: 1, used: 1, started_call: 'c1', queue: [call] },
      model: () => answer('ok'),
    });
    x.record.graph.supervisor?.messages.push({
      role: 'assistant',
      content: '',
      tool_calls: [call],
    });
    await new SupervisorEngine().advance(x.run);
    expect(x.ran).toEqual([{ id: 'w', args: { q: 1 } }]);
    expect(x.record.graph.supervisor?.used).toBe(1);
    expect(x.run.answer).toEqual({ text: 'ok', finishReason: 'stop' });
  });

  it('answers an unknown worker with an error result and does not spend budget on it', async () => {
    const x = execution('supervisor', [tool('w')], {
      model: (_r, n) => (n === 0 ? calls('ghost') : answer('fine')),
    });
    await new SupervisorEngine().advance(x.run);
    expect(x.ran).toHaveLength(0);
    expect(x.record.graph.supervisor?.used).toBe(0);
    expect(x.record.graph.supervisor?.messages.at(-2)?.content).toBe(
      'error: there is no worker "ghost"',
    );
  });

  it('fails the run when one answer asks for more worker calls than a turn may make', async () => {
    const x = execution('supervisor', [tool('w')], {
      supervisor: { budget: 100 },
      limits: { maxToolCallsPerTurn: 3 },
      model: () => calls('w', 'w', 'w', 'w'),
    });
    const failure = new SupervisorEngine().advance(x.run);
    await expect(failure).rejects.toBeInstanceOf(ToolCallLimitExceeded);
    await expect(failure).rejects.toThrow(/asked for 4 tool calls in one answer; at most 3/);
    expect(x.ran).toHaveLength(0);
    expect(x.record.graph.supervisor?.queue).toEqual([]);
  });

  it('fails the run when its worker calls in all would pass the per-run bound', async () => {
    const x = execution('supervisor', [tool('w')], {
      supervisor: { budget: 100 },
      limits: { maxToolCallsPerRun: 5 },
      model: () => calls('w', 'w'),
    });
    await expect(new SupervisorEngine().advance(x.run)).rejects.toThrow(
      /2 more tool calls after 4; at most 5 are allowed per run/,
    );
    // Two turns of two ran; the third answer was refused whole.
    expect(x.ran).toHaveLength(4);
  });

  it('cuts a worker result to the tool result bound', async () => {
    const big: StepOutcome = { ok: true, output: 'y'.repeat(5000), turns: 0, toolCalls: 1 };
    const x = execution('supervisor', [tool('w')], {
      outcomes: { w: big },
      limits: { toolResultMaxBytes: 1024 },
      model: (_r, n) => (n === 0 ? calls('w') : answer('done')),
    });
    await new SupervisorEngine().advance(x.run);
    const result = x.record.graph.supervisor?.messages.find((m) => m.role === 'tool');
    expect(Buffer.byteLength(result?.content ?? '')).toBeLessThanOrEqual(1024);
    expect(result?.content).toMatch(/tool result truncated: 5000 bytes/);
  });
});

describe('graph tool-call budget', () => {
  it('counts on from the checkpoint, so a taken-over run does not start afresh', () => {
    const x = execution('pipeline', [tool('a')], {
      toolCalls: 9,
      limits: { maxToolCallsPerRun: 10 },
    });
    expect(x.run.toolCalls.used).toBe(9);
    expect(() => x.run.toolCalls.admit(2)).toThrow(ToolCallLimitExceeded);
    x.run.toolCalls.admit(1);
    expect(x.run.toolCalls.used).toBe(10);
  });
});
