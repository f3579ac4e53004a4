import { HttpException, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { performance } from 'node:perf_hooks';
import type { JsonValue } from '../../platform/state/state-store.js';
import {
  ChatProvider,
  type ChatDelta,
  type ChatMessage,
  type ToolCall,
} from '../../providers/chat.types.js';
import { RunJournal } from '../events/run-journal.js';
import type { SpendMeter } from '../lifecycle/run-spending.js';
import type { InFlightTurn, RunFinishReason } from '../record/run-record.js';
import { ToolExecutor } from '../../tools/tool-executor.service.js';
import type { ToolSpec } from '../../tools/tool.types.js';
import type { ResolvedToolset } from '../../tools/tool-catalog.service.js';
import { mapConcurrently } from './concurrency.js';
import { ToolCallBudget, type ToolCallLimits } from './tool-call-budget.js';
import { toolReply, toolResultContent } from './tool-result-content.js';

/** The run's `model.delta` events of turn `turn`, when the run streams its model's answer. */
function deltaWriter(turn: number): ((delta: ChatDelta) => void) | undefined {
  const journal = RunJournal.current();
  if (!journal?.wantsDeltas) return undefined;
  return (delta) => {
    if (delta.kind === 'text') {
      journal.emit('model.delta', { turn, text: delta.text });
      return;
    }
    const call: { [key: string]: JsonValue } = { index: delta.index };
    if (delta.id !== undefined) call.id = delta.id;
    if (delta.name !== undefined) call.name = delta.name;
    if (delta.arguments !== undefined) call.arguments = delta.arguments;
    journal.emit('model.delta', { turn, tool_call: call });
  };
}

/**
 * Tool calls of one turn in flight at once; the rest wait for a free slot. Enough for the usual
 * handful to run side by side, few enough that one answer cannot open hundreds of connections.
 */
export const TOOL_CALLS_AT_ONCE = 8;

export type LoopFinish = Exclude<RunFinishReason, 'error'>;

/** How far a loop has come. */
export interface LoopProgress {
  turns: number;
  tool_calls: number;
}

/**
 * What a durable run learns as its loop goes, to checkpoint it: each may write, and the loop
 * waits for it before going on.
 */
export interface LoopHooks {
  /** The model answered with tool calls; none of them has started yet. */
  answered?(turn: InFlightTurn): Promise<void>;
  /** A tool call came back while others of its turn still run. */
  toolReturned?(turn: InFlightTurn): Promise<void>;
  /**
   * A turn is complete: its messages (the answer, then the results in call order), how far the
   * loop has come, and why it ends, when it ends with this turn.
   */
  turnDone?(messages: ChatMessage[], progress: LoopProgress, finish?: LoopFinish): Promise<void>;
}

export interface LoopInput {
  tenantId: string;
  toolset: string;
  tools: ToolSpec[];
  /** The toolset `tools` come from, as resolved: the calls run what the model was offered. */
  resolved?: ResolvedToolset;
  model?: string;
  /** The conversation so far, ending with the new user input (or the run's last turn). */
  messages: ChatMessage[];
  maxTurns: number;
  actor?: string;
  signal?: AbortSignal;
  /** The run's tool-call budget when it spans several loops (a graph's steps); else a new one. */
  budget?: ToolCallBudget;
  /** A resumed run: turns completed before, and the turn whose tool calls were in flight. */
  resume?: { turns: number; inFlight: InFlightTurn | null };
  /**
   * The `Idempotency-Key` of a tool call: the same on every attempt of that call (a takeover
   * may repeat the one in flight), so a tool endpoint can tell a repeat.
   */
  idempotencyKey?: (turn: number, call: ToolCall) => string;
  hooks?: LoopHooks;
  /**
   * Where each model call's usage goes (the run's meter), before its answer is checkpointed
   * or acted on.
   */
  meter?: SpendMeter;
}

export interface LoopResult {
  /** The messages this loop added (assistant replies and tool results). */
  added: ChatMessage[];
  conversation: ChatMessage[];
  text: string;
  finishReason: LoopFinish;
  /** Turns completed in all (resumed ones included). */
  turns: number;
  /** Tool calls of the turns this loop completed. */
  toolCalls: number;
}

/**
 * The agent loop: call the model with the conversation and the toolset's tools, run every tool
 * call it asks for (TOOL_CALLS_AT_ONCE at a time), append the results, and repeat until the
 * model answers or the turn limit is reached. A failing tool is an error result the model sees,
 * never a crashed run; a failing model call (502/504 problem) ends the run, and so does an
 * answer with more tool calls than a turn or the run may make (502 `too-many-tool-calls`,
 * before any of them runs). Each result is cut to SVC_TOOL_RESULT_MAX_BYTES. A resumed loop
 * first finishes the turn that was in flight: only the calls whose results are missing run.
 */
@Injectable()
export class AgentLoop {
  private readonly limits: ToolCallLimits;
  private readonly resultMaxBytes: number;

  constructor(
    private readonly provider: ChatProvider,
    private readonly tools: ToolExecutor,
    config: ConfigService<GatewayConfig, true>,
  ) {
    const limits = config.get('runLimits', { infer: true });
    this.limits = limits;
    this.resultMaxBytes = limits.toolResultMaxBytes;
  }

  async run(input: LoopInput): Promise<LoopResult> {
    const budget = input.budget ?? new ToolCallBudget(this.limits);
    const hooks = input.hooks ?? {};
    const conversation = [...input.messages];
    const added: ChatMessage[] = [];
    const append = (...messages: ChatMessage[]) => {
      conversation.push(...messages);
      added.push(...messages);
    };
    let turns = input.resume?.turns ?? 0;
    let toolCalls = 0;
    let pending = input.resume?.inFlight ?? null;
    let finish: LoopFinish = 'max_turns';
    while (pending || turns < input.maxTurns) {
      let turn: InFlightTurn;
      if (pending) {
        turn = pending;
        pending = null;
      } else {
        input.signal?.throwIfAborted();
        const completion = await this.provider.complete(
          {
            messages: conversation,
            tools: input.tools,
            model: input.model,
            toolset: input.toolset,
          },
          { signal: input.signal, onDelta: deltaWriter(turns + 1) },
        );
        // The answer's spend goes in the ledger with the write that acts on the answer.
        const { usage } = completion;
        const { meter } = input;
        const acting = <T>(act: () => Promise<T>): Promise<T> =>
          usage && meter ? meter.spentWith(input.model, usage, act) : act();
        const answer = completion.message;
        const calls = answer.tool_calls ?? [];
        if (calls.length === 0 || completion.finishReason === 'length') {
          turns += 1;
          append(answer);
          finish = completion.finishReason === 'length' ? 'length' : 'stop';
          await acting(async () =>
            hooks.turnDone?.([answer], { turns, tool_calls: toolCalls }, finish),
          );
          break;
        }
        const next: InFlightTurn = { number: turns + 1, answer, results: [] };
        await acting(async () => {
          budget.admit(calls.length);
          await hooks.answered?.(next);
        });
        turn = next;
      }
      const results = await this.finishTurn(input, turn, hooks);
      turns = turn.number;
      toolCalls += results.length;
      append(turn.answer, ...results);
      const ends = turns >= input.maxTurns;
      await hooks.turnDone?.(
        [turn.answer, ...results],
        { turns, tool_calls: toolCalls },
        ends ? 'max_turns' : undefined,
      );
      if (ends) break;
    }
    const lastReply = conversation.findLast((message) => message.role === 'assistant');
    return {
      added,
      conversation,
      text: lastReply?.content ?? '',
      finishReason: finish,
      turns,
      toolCalls,
    };
  }

  /** Runs the turn's calls that have no result yet; answers every result in call order. */
  private async finishTurn(
    input: LoopInput,
    turn: InFlightTurn,
    hooks: LoopHooks,
  ): Promise<ChatMessage[]> {
    const calls = turn.answer.tool_calls ?? [];
    const answered = new Set(turn.results.map((result) => result.tool_call_id));
    const missing = calls.filter((call) => !answered.has(call.id));
    let left = missing.length;
    await mapConcurrently(missing, TOOL_CALLS_AT_ONCE, async (call) => {
      const result = await this.callTool(input, turn.number, call);
      turn.results.push(result);
      left -= 1;
      // The last result is kept by the turn's own checkpoint.
      if (left > 0) await hooks.toolReturned?.(turn);
    });
    return calls.map(
      (call) => turn.results.find((result) => result.tool_call_id === call.id) as ChatMessage,
    );
  }

  /** One tool call, between its `tool.started` and `tool.finished` events. */
  private async callTool(input: LoopInput, turn: number, call: ToolCall): Promise<ChatMessage> {
    const journal = RunJournal.current();
    journal?.emit('tool.started', {
      turn,
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
    });
    const started = performance.now();
    const { reply, isError } = await this.callToolOnce(input, turn, call);
    journal?.emit('tool.finished', {
      turn,
      call_id: call.id,
      name: call.name,
      duration_ms: Math.round(performance.now() - started),
      is_error: isError,
      result: reply.content,
    });
    return reply;
  }

  private async callToolOnce(
    input: LoopInput,
    turn: number,
    call: ToolCall,
  ): Promise<{ reply: ChatMessage; isError: boolean }> {
    try {
      const outcome = await this.tools.execute(
        {
          tenantId: input.tenantId,
          toolset: input.toolset,
          name: call.name,
          arguments: call.arguments,
        },
        {
          signal: input.signal,
          actor: input.actor,
          callId: call.id,
          ...(input.resolved ? { toolset: input.resolved } : {}),
          ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey(turn, call) } : {}),
        },
      );
      const reply = toolReply(
        call,
        toolResultContent(outcome.result, outcome.isError, Number.POSITIVE_INFINITY),
        this.resultMaxBytes,
      );
      return { reply, isError: outcome.isError };
    } catch (error) {
      if (!(error instanceof HttpException)) throw error;
      const reply = toolReply(
        call,
        toolResultContent(error.message, true, Number.POSITIVE_INFINITY),
        this.resultMaxBytes,
      );
      return { reply, isError: true };
    }
  }
}
