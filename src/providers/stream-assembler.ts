import type { ChatCompletion, ChatDelta } from './chat.types.js';
import { isObject } from './completion.parser.js';
import { providerFailed } from './provider-errors.js';

interface CallSoFar {
  id?: string;
  name?: string;
  arguments: string;
}

/**
 * Puts a streamed answer back together from its deltas (text pieces and tool-call chunks by
 * index, OpenAI's `choices[0].delta` shape, which the native stream shares), passing each piece
 * on as a ChatDelta, so the completion at the end is the one a non-streamed call would have
 * answered: `message()` builds that message in the wire's own shape for the same parser.
 */
export class StreamAssembler {
  private content = '';
  private sawContent = false;
  private readonly calls = new Map<number, CallSoFar>();
  finishReason: unknown = null;
  usage: unknown;
  model: unknown;

  constructor(private readonly onDelta: (delta: ChatDelta) => void) {}

  /** One event's data as JSON text; `[DONE]` ends nothing by itself (the stream's end does). */
  parse(data: string): unknown {
    if (data.trim() === '[DONE]') return undefined;
    try {
      return JSON.parse(data) as unknown;
    } catch {
      throw providerFailed("the model endpoint's stream holds an event that is not JSON");
    }
  }

  /** A `delta` object: its text and tool-call chunks, passed on and kept. */
  addDelta(delta: unknown): void {
    if (!isObject(delta)) return;
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.content += delta.content;
      this.sawContent = true;
      this.onDelta({ kind: 'text', text: delta.content });
    }
    if (!Array.isArray(delta.tool_calls)) return;
    for (const [position, chunk] of delta.tool_calls.entries()) {
      if (!isObject(chunk)) continue;
      const index = typeof chunk.index === 'number' ? chunk.index : position;
      const fn = isObject(chunk.function) ? chunk.function : chunk;
      const call = this.calls.get(index) ?? { arguments: '' };
      const piece: ChatDelta = { kind: 'tool_call', index };
      if (typeof chunk.id === 'string' && chunk.id !== '' && call.id === undefined) {
        call.id = chunk.id;
        piece.id = chunk.id;
      }
      if (typeof fn.name === 'string' && fn.name !== '' && call.name === undefined) {
        call.name = fn.name;
        piece.name = fn.name;
      }
      const args = fn.arguments;
      const text = typeof args === 'string' ? args : isObject(args) ? JSON.stringify(args) : '';
      if (text !== '') {
        call.arguments += text;
        piece.arguments = text;
      }
      this.calls.set(index, call);
      if (piece.id !== undefined || piece.name !== undefined || piece.arguments !== undefined)
        this.onDelta(piece);
    }
  }

  /** The assembled message in OpenAI's shape (`tool_calls[].function`), for parseCompletion. */
  message(): Record<string, unknown> {
    const toolCalls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({
        id: call.id ?? `call_${index}`,
        type: 'function',
        function: { name: call.name ?? '', arguments: call.arguments || '{}' },
      }));
    return {
      role: 'assistant',
      content: this.sawContent ? this.content : toolCalls.length > 0 ? null : '',
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    };
  }
}

/**
 * An endpoint asked to stream that answered whole: its answer is passed on in one piece (text,
 * then each tool call), so a streamed caller still sees every part of it.
 */
export function forwardWhole(
  completion: ChatCompletion,
  onDelta: (delta: ChatDelta) => void,
): ChatCompletion {
  const { message } = completion;
  if (message.content !== '') onDelta({ kind: 'text', text: message.content });
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    const args =
      typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    onDelta({ kind: 'tool_call', index, id: call.id, name: call.name, arguments: args });
  }
  return completion;
}
