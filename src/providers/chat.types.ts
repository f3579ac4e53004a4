import type { JsonValue } from '../platform/state/state-store.js';
import type { ToolSpec } from '../tools/tool.types.js';

/** A tool call the model asked for; `arguments` is parsed JSON (an object for valid calls). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: JsonValue;
}

/**
 * One message of a conversation, in the gateway's own (OpenAI-like) shape. Providers translate it
 * to and from their wire format. `tool_calls` only on assistant messages; `tool_call_id` and
 * `name` only on tool results.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

/** The spec's chat request: `messages`, `tools`, `model`, `toolset`. */
export interface ChatRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  model?: string;
  toolset: string;
}

/** Why the model stopped: `stop` (answered), `tool_calls` (wants tools), `length` (cut off). */
export type ModelFinishReason = 'stop' | 'tool_calls' | 'length';

export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

/** The spec's chat response: `choice.message`, plus what the loop needs to decide. */
export interface ChatCompletion {
  message: ChatMessage & { role: 'assistant' };
  finishReason: ModelFinishReason;
  usage?: ChatUsage;
  /** The model that answered, when the provider says. */
  model?: string;
}

/**
 * A piece of the model's answer as it is generated: text, or a chunk of a tool call (its id and
 * name when the chunk starts it, then pieces of its JSON arguments). `index` orders the calls of
 * one answer. The completed answer is still what `complete` resolves to.
 */
export type ChatDelta =
  | { kind: 'text'; text: string }
  | { kind: 'tool_call'; index: number; id?: string; name?: string; arguments?: string };

export interface CompletionOptions {
  /** Aborts the call (and the stream). */
  signal?: AbortSignal;
  /** Called with each delta as it arrives, when the caller wants the answer streamed. */
  onDelta?: (delta: ChatDelta) => void;
}

/**
 * The model provider port (echo, openai, native), chosen by configuration in one factory.
 * `complete` retries 429/5xx within its deadline and then throws a ProblemException: 502 for an
 * upstream failure, 504 for a timeout. It never puts the credential in an error or a log line.
 */
export abstract class ChatProvider {
  /** `echo`, `openai` or `native`. */
  abstract readonly kind: string;
  abstract complete(request: ChatRequest, options?: CompletionOptions): Promise<ChatCompletion>;
}
