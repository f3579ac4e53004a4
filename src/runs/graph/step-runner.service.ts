import { HttpException, Injectable } from '@nestjs/common';
import type { StepSpec } from '../../agents/agent-spec.js';
import {
  type ReferenceValues,
  ResolvedReferencesTooLarge,
  resolveReferences,
} from '../../agents/step-references.js';
import { AgentLoop } from '../loop/agent-loop.service.js';
import { ToolCallLimitExceeded, type ToolCallBudget } from '../loop/tool-call-budget.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import { ToolCatalog, viewOf } from '../../tools/tool-catalog.service.js';
import { ToolExecutor } from '../../tools/tool-executor.service.js';
import { DEFAULT_TOOLSET } from '../../tools/tool.limits.js';
import type { ToolSpec } from '../../tools/tool.types.js';
import type { SpendMeter } from '../lifecycle/run-spending.js';

export interface StepContext {
  tenantId: string;
  actor?: string;
  model?: string;
  maxTurns: number;
  signal: AbortSignal;
  references: ReferenceValues;
  /** The run's tool-call budget: every tool step and every agent step's tool call draws on it. */
  budget: ToolCallBudget;
  /** The step's Idempotency-Key (its agent's tool calls add their turn and call id). */
  idempotencyKey: string;
  /** A supervisor's call: arguments the model chose (over the step's own), or a task. */
  callArguments?: JsonValue;
  /** The run's meter: an agent step's model calls are spent as they answer. */
  meter?: SpendMeter;
}

export interface StepOutcome {
  ok: boolean;
  output?: JsonValue;
  error?: string;
  turns: number;
  toolCalls: number;
}

type JsonObject = { [key: string]: JsonValue };

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const asText = (value: JsonValue): string =>
  typeof value === 'string' ? value : JSON.stringify(value);

/** An agent step's parameters as a supervisor's worker: one task in words. */
const TASK_PARAMETERS = {
  type: 'object' as const,
  properties: { task: { type: 'string', description: 'What this worker should do.' } },
};

/**
 * Runs one step of a graph: a `tool` step through ToolExecutor (the one tool path, so validation,
 * endpoint policy and audit apply), an `agent` step as its own LLM loop with its toolset. A
 * tool-level error or a problem (404/422/502/504) is a failed step; anything else (the lease
 * was lost, the backend is down) propagates and stops the run where it is.
 */
@Injectable()
export class StepRunner {
  constructor(
    private readonly tools: ToolExecutor,
    private readonly catalog: ToolCatalog,
    private readonly loop: AgentLoop,
  ) {}

  async run(step: StepSpec, context: StepContext): Promise<StepOutcome> {
    try {
      return step.kind === 'tool'
        ? await this.runTool(step, context)
        : await this.runAgent(step, context);
    } catch (error) {
      if (context.signal.aborted || !(error instanceof HttpException)) throw error;
      // A tool step refused by the budget, or whose references resolved too large, made no call.
      const called =
        step.kind === 'tool' &&
        !(error instanceof ToolCallLimitExceeded) &&
        !(error instanceof ResolvedReferencesTooLarge);
      return { ok: false, error: error.message, turns: 0, toolCalls: called ? 1 : 0 };
    }
  }

  /** A supervisor's workers as tools its model can call: one per step. */
  async workers(tenantId: string, steps: readonly StepSpec[]): Promise<ToolSpec[]> {
    const workers: ToolSpec[] = [];
    for (const step of steps) {
      if (step.kind === 'agent') {
        workers.push({
          name: step.id,
          description: step.description ?? `Worker agent: ${step.prompt ?? ''}`.slice(0, 1024),
          parameters: TASK_PARAMETERS,
        });
        continue;
      }
      const toolset = await this.catalog.view(tenantId, step.toolset ?? DEFAULT_TOOLSET);
      const tool = toolset.tools.find((candidate) => candidate.name === step.tool);
      workers.push({
        name: step.id,
        description: step.description ?? tool?.description ?? `Calls tool ${step.tool ?? ''}`,
        parameters: tool?.parameters ?? { type: 'object' },
      });
    }
    return workers;
  }

  private async runTool(step: StepSpec, context: StepContext): Promise<StepOutcome> {
    const own = resolveReferences(step.arguments ?? {}, context.references);
    const chosen = context.callArguments;
    const args = isObject(own) && isObject(chosen) ? { ...own, ...chosen } : own;
    context.budget.admit(1);
    const outcome = await this.tools.execute(
      {
        tenantId: context.tenantId,
        toolset: step.toolset ?? DEFAULT_TOOLSET,
        name: step.tool ?? '',
        arguments: args,
      },
      { signal: context.signal, actor: context.actor, idempotencyKey: context.idempotencyKey },
    );
    return outcome.isError
      ? { ok: false, error: asText(outcome.result), turns: 0, toolCalls: 1 }
      : { ok: true, output: outcome.result, turns: 0, toolCalls: 1 };
  }

  private async runAgent(step: StepSpec, context: StepContext): Promise<StepOutcome> {
    const prompt = asText(resolveReferences(step.prompt ?? '', context.references));
    const task = isObject(context.callArguments) ? context.callArguments.task : undefined;
    const content = typeof task === 'string' && task ? `${prompt}\n\n${task}` : prompt;
    const toolset = step.toolset ?? DEFAULT_TOOLSET;
    const resolved = await this.catalog.describe(context.tenantId, toolset);
    const { tools } = viewOf(resolved);
    const result = await this.loop.run({
      tenantId: context.tenantId,
      toolset,
      tools,
      resolved,
      model: context.model,
      messages: [{ role: 'user', content }],
      maxTurns: context.maxTurns,
      actor: context.actor,
      signal: context.signal,
      budget: context.budget,
      idempotencyKey: (turn, call) => `${context.idempotencyKey}/${turn}/${call.id}`,
      meter: context.meter,
    });
    return { ok: true, output: result.text, turns: result.turns, toolCalls: result.toolCalls };
  }
}
