import { HttpException, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { ChatProvider, type ChatMessage, type ToolCall } from '../../providers/chat.types.js';
import type { RunFinishReason } from '../record/run-record.js';
import { ToolExecutor } from '../../tools/tool-executor.service.js';
import type { ToolSpec } from '../../tools/tool.types.js';
import { mapConcurrently } from './concurrency.js';
import { ToolCallBudget, type ToolCallLimits } from './tool-call-budget.js';
import { toolResultContent } from './tool-result-content.js';

/**
 * Tool calls of one turn in flight at once; the rest wait for a free slot. Enough for the usual
 * handful to run side by side, few enough that one answer cannot open hundreds of connections.
 */
export const TOOL_CALLS_AT_ONCE = 8;

export interface LoopInput {
  tenantId: string;
  toolset: string;
  tools: ToolSpec[];
  model?: string;
  /** The conversation so far, ending with the new user input. */
  messages: ChatMessage[];
  maxTurns: number;
  actor?: string;
  signal?: AbortSignal;
  /** The run's tool-call budget when it spans several loops (a graph's steps); else a new one. */
  budget?: ToolCallBudget;
  /** Called with the whole conversation after every turn (checkpointing, progress). */
  onTurn?: (conversation: ChatMessage[], progress: LoopProgress) => Promise<void>;
}

/** How far a loop has come. */
export interface LoopProgress {
  turns: number;
  tool_calls: number;
}

export interface LoopResult {
  /** The messages this run added (assistant replies and tool results). */
  added: ChatMessage[];
  conversation: ChatMessage[];
  text: string;
  finishReason: Exclude<RunFinishReason, 'error'>;
  turns: number;
  toolCalls: number;
}

/**
 * The agent loop: call the model with the conversation and the toolset's tools, run every tool
 * call it asks for (TOOL_CALLS_AT_ONCE at a time), append the results, and repeat until the
 * model answers or the turn limit is reached. A failing tool is an error result the model sees,
 * never a crashed run; a failing model call (502/504 problem) ends the run, and so does an
 * answer with more tool calls than a turn or the run may make (502 `too-many-tool-calls`,
 * before any of them runs). Each result is cut to SVC_TOOL_RESULT_MAX_BYTES.
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
    const conversation = [...input.messages];
    const added: ChatMessage[] = [];
    const append = (message: ChatMessage) => {
      conversation.push(message);
      added.push(message);
    };
    let turns = 0;
    let toolCalls = 0;
    let finishReason: LoopResult['finishReason'] = 'max_turns';
    while (turns < input.maxTurns) {
      input.signal?.throwIfAborted();
      const completion = await this.provider.complete(
        { messages: conversation, tools: input.tools, model: input.model, toolset: input.toolset },
        input.signal,
      );
      turns++;
      append(completion.message);
      const calls = completion.message.tool_calls ?? [];
      if (completion.finishReason === 'length') finishReason = 'length';
      else if (calls.length === 0) finishReason = 'stop';
      if (calls.length === 0 || completion.finishReason === 'length') {
        await input.onTurn?.(conversation, { turns, tool_calls: toolCalls });
        break;
      }
      budget.admit(calls.length);
      const results = await mapConcurrently(calls, TOOL_CALLS_AT_ONCE, (call) =>
        this.callTool(input, call),
      );
      toolCalls += calls.length;
      results.forEach(append);
      await input.onTurn?.(conversation, { turns, tool_calls: toolCalls });
    }
    const lastReply = [...added].reverse().find((message) => message.role === 'assistant');
    return { added, conversation, text: lastReply?.content ?? '', finishReason, turns, toolCalls };
  }

  private async callTool(input: LoopInput, call: ToolCall): Promise<ChatMessage> {
    const reply = (content: string): ChatMessage => ({
      role: 'tool',
      tool_call_id: call.id,
      name: call.name,
      content,
    });
    try {
      const outcome = await this.tools.execute(
        {
          tenantId: input.tenantId,
          toolset: input.toolset,
          name: call.name,
          arguments: call.arguments,
        },
        { signal: input.signal, actor: input.actor, callId: call.id },
      );
      return reply(toolResultContent(outcome.result, outcome.isError, this.resultMaxBytes));
    } catch (error) {
      if (!(error instanceof HttpException)) throw error;
      return reply(toolResultContent(error.message, true, this.resultMaxBytes));
    }
  }
}
