import { randomUUID } from 'node:crypto';
import type { ProblemException } from '../platform/http/problem.js';
import type { JsonValue } from '../platform/state/state-store.js';
import type { ChatCompletion, ChatUsage, ModelFinishReason, ToolCall } from './chat.types.js';
import { providerFailed } from './provider-errors.js';

/** Reads an assistant answer out of a parsed JSON body, shared by the openai and native wire formats. */

type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(what: string): ProblemException {
  return providerFailed(`the model endpoint's answer is malformed: ${what}`);
}

/** A string; null or absent is ''; OpenAI content parts (`[{type:'text', text}]`) are joined. */
function parseContent(value: unknown, where: string): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) {
    return value
      .map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : ''))
      .join('');
  }
  throw malformed(`${where}.content is neither text nor null`);
}

/**
 * Arguments arrive as a JSON string (OpenAI) or as an object (native). Unparsable text is kept as
 * the raw string so the tool layer reports invalid arguments to the model instead of failing the run.
 */
function parseArguments(value: unknown): JsonValue {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'string') return value as JsonValue; // came out of JSON.parse
  if (value.trim() === '') return {}; // some servers send '' for a call without arguments
  try {
    return JSON.parse(value) as JsonValue;
  } catch {
    return value;
  }
}

function generatedCallId(): string {
  return `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/** `{id, type:'function', function:{name, arguments}}` or the plain `{id, name, arguments}`. */
function parseToolCall(raw: unknown, where: string): ToolCall {
  if (!isObject(raw)) throw malformed(`${where} is not an object`);
  const fn = isObject(raw.function) ? raw.function : raw;
  if (typeof fn.name !== 'string' || fn.name === '') throw malformed(`${where} has no name`);
  const id = typeof raw.id === 'string' && raw.id !== '' ? raw.id : generatedCallId();
  return { id, name: fn.name, arguments: parseArguments(fn.arguments) };
}

function parseToolCalls(message: JsonObject, where: string): ToolCall[] {
  const raw = message.tool_calls;
  if (raw === undefined || raw === null) {
    // The legacy single `function_call` some older servers still send.
    const legacy = message.function_call;
    return isObject(legacy) ? [parseToolCall({ function: legacy }, `${where}.function_call`)] : [];
  }
  if (!Array.isArray(raw)) throw malformed(`${where}.tool_calls is not an array`);
  return raw.map((call, index) => parseToolCall(call, `${where}.tool_calls[${index}]`));
}

/** `tool_calls` exactly when the message carries tool calls, so the loop can trust either. */
function parseFinishReason(value: unknown, hasToolCalls: boolean): ModelFinishReason {
  if (hasToolCalls) return 'tool_calls';
  return value === 'length' ? 'length' : 'stop';
}

function parseUsage(value: unknown): ChatUsage | undefined {
  if (!isObject(value)) return undefined;
  const usage: ChatUsage = {};
  for (const key of ['prompt_tokens', 'completion_tokens', 'total_tokens'] as const) {
    if (typeof value[key] === 'number') usage[key] = value[key];
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/**
 * Builds the completion from `choice` (the chosen choice object, found at `where`) and the body's
 * optional `usage` and `model`. Anything unusable is a 502.
 */
export function parseCompletion(body: unknown, choice: unknown, where: string): ChatCompletion {
  if (!isObject(choice)) throw malformed(`${where} is missing`);
  const raw = choice.message;
  if (!isObject(raw)) throw malformed(`${where}.message is missing`);
  const toolCalls = parseToolCalls(raw, `${where}.message`);
  const completion: ChatCompletion = {
    message: {
      role: 'assistant',
      content: parseContent(raw.content, `${where}.message`),
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    },
    finishReason: parseFinishReason(choice.finish_reason, toolCalls.length > 0),
  };
  const usage = isObject(body) ? parseUsage(body.usage) : undefined;
  if (usage) completion.usage = usage;
  if (isObject(body) && typeof body.model === 'string') completion.model = body.model;
  return completion;
}
