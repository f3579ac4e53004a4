import type { JsonValue } from '../platform/state/state-store.js';
import {
  ChatProvider,
  type ChatCompletion,
  type ChatDelta,
  type ChatMessage,
  type ChatRequest,
  type CompletionOptions,
} from './chat.types.js';
import { forwardWhole } from './stream-assembler.js';
import { estimatedUsage } from './usage.js';

/** `/tool NAME {json-args}`: the offline way to ask for a tool call (CONTRACT section 4). */
const TOOL_COMMAND = /^\/tool\s+([A-Za-z0-9_.-]+)(?:\s+([\s\S]*))?$/;

type JsonObject = { [key: string]: JsonValue };

/** The JSON object in `text` ({} when empty), or undefined when it is anything else. */
function parseObject(text: string | undefined): JsonObject | undefined {
  if (text === undefined || text.trim() === '') return {};
  try {
    const value = JSON.parse(text) as JsonValue;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function answer(content: string): ChatCompletion {
  return { message: { role: 'assistant', content }, finishReason: 'stop', model: 'echo' };
}

/** The tool's name for a result: its own `name`, else the call it answers, else the call id. */
function toolName(result: ChatMessage, messages: ChatMessage[]): string {
  if (result.name) return result.name;
  const calls = messages.flatMap((message) => message.tool_calls ?? []);
  const call = calls.find((candidate) => candidate.id === result.tool_call_id);
  return call?.name ?? result.tool_call_id ?? 'tool';
}

/**
 * The offline provider: deterministic, no network. Echoes the last user message, turns
 * `/tool NAME {args}` into a tool call, and answers tool results by quoting them, so the agent
 * loop can be exercised end to end without a model.
 */
export class EchoProvider extends ChatProvider {
  readonly kind = 'echo';

  complete(request: ChatRequest, options: CompletionOptions = {}): Promise<ChatCompletion> {
    const { signal, onDelta } = options;
    // A promise, not a throw: callers see the abort the same way as from a network provider.
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const reply = this.reply(request.messages);
    // No model to count tokens: estimated, so usage and budgets work offline too.
    const said = reply.message.content + JSON.stringify(reply.message.tool_calls ?? []);
    const completion = { ...reply, usage: estimatedUsage(request.messages, said) };
    if (!onDelta) return Promise.resolve(completion);
    return this.stream(completion, onDelta, signal);
  }

  /**
   * Streamed: word by word (each piece keeps the whitespace before the next word, so the pieces
   * spell the answer exactly), yielding between words so each arrives on its own; a tool call
   * as one chunk. Deterministic: no timers.
   */
  private async stream(
    completion: ChatCompletion,
    onDelta: (delta: ChatDelta) => void,
    signal?: AbortSignal,
  ): Promise<ChatCompletion> {
    for (const word of completion.message.content.match(/\s*\S+\s*/g) ?? []) {
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      onDelta({ kind: 'text', text: word });
    }
    forwardWhole({ ...completion, message: { ...completion.message, content: '' } }, onDelta);
    return completion;
  }

  private reply(messages: ChatMessage[]): ChatCompletion {
    const last = messages.at(-1);
    if (last?.role === 'tool') {
      const start = messages.findLastIndex((message) => message.role !== 'tool') + 1;
      const results = messages.slice(start);
      return answer(results.map((r) => `${toolName(r, messages)} → ${r.content}`).join('\n'));
    }
    if (last?.role === 'user') {
      const command = TOOL_COMMAND.exec(last.content.trim());
      const args = command ? parseObject(command[2]) : undefined;
      if (command && args) {
        // Derived from the conversation's length: deterministic, and distinct across turns.
        const call = { id: `call_${messages.length}`, name: command[1], arguments: args };
        return {
          message: { role: 'assistant', content: '', tool_calls: [call] },
          finishReason: 'tool_calls',
          model: 'echo',
        };
      }
    }
    const lastUser = messages.findLast((message) => message.role === 'user');
    return answer(lastUser?.content ?? '');
  }
}
