import { HttpException, Injectable } from '@nestjs/common';
import { ChatProvider, type ChatMessage, type ToolCall } from '../providers/chat.types.js';
import type { RunFinishReason } from '../runs/run-record.js';
import type { JsonValue } from '../state/state-store.js';
import { ToolExecutor } from '../tools/tool-executor.service.js';
import type { ToolSpec } from '../tools/tool.types.js';

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

/** What the model sees for a tool call: the result as text, or the error it caused. */
function toolResultContent(result: JsonValue, isError: boolean): string {
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return isError ? `error: ${text}` : text;
}

/**
 * The agent loop: call the model with the conversation and the toolset's tools, run every tool
 * call it asks for (concurrently), append the results, and repeat until the model answers or the
 * turn limit is reached. A failing tool is an error result the model sees, never a crashed run;
 * a failing model call (502/504 problem) ends the run.
 */
@Injectable()
export class AgentLoop {
  constructor(
    private readonly provider: ChatProvider,
    private readonly tools: ToolExecutor,
  ) {}

  async run(input: LoopInput): Promise<LoopResult> {
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
      const results = await Promise.all(calls.map((call) => this.callTool(input, call)));
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
      return reply(toolResultContent(outcome.result, outcome.isError));
    } catch (error) {
      if (!(error instanceof HttpException)) throw error;
      return reply(toolResultContent(error.message, true));
    }
  }
}
