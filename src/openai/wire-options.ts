import type { FieldError } from '../platform/http/problem.js';
import type { JsonValue } from '../platform/state/state-store.js';
import type { ChatCompletionDto } from './dto/chat-completion.dto.js';

const absent = (value: JsonValue | undefined): boolean => value === undefined || value === null;
const isEmptyList = (value: JsonValue | undefined): boolean =>
  Array.isArray(value) && value.length === 0;
const typeOf = (value: JsonValue | undefined): unknown =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? value.type : undefined;

/**
 * The settings of an OpenAI request that a run cannot honour, as field errors (none: the
 * request is taken). Settings that ask for what an agent does anyway are accepted: one choice,
 * text output, no client tools (`tool_choice` `auto`/`none`), no log probabilities. Everything
 * else in OpenAI's request is accepted and applied or ignored (ChatCompletionDto).
 */
export function refusedFields(body: ChatCompletionDto): FieldError[] {
  const refused: FieldError[] = [];
  const refuse = (path: string, why: string) => refused.push({ path, message: `${path} ${why}` });
  if (body.n !== undefined && body.n !== null && body.n > 1) {
    refuse('n', 'must be 1: a run gives one answer (send one request per answer wanted)');
  }
  if (!absent(body.tools) && !isEmptyList(body.tools)) {
    refuse(
      'tools',
      'is not taken: the agent calls its own toolset’s tools inside the gateway (choose the toolset with X-Toolset)',
    );
  }
  if (!absent(body.functions) && !isEmptyList(body.functions)) {
    refuse('functions', 'is not taken: the agent calls its own toolset’s tools inside the gateway');
  }
  for (const field of ['tool_choice', 'function_call'] as const) {
    const value = body[field];
    if (!absent(value) && value !== 'auto' && value !== 'none') {
      refuse(field, 'may only be "auto" or "none": the agent decides which of its tools to call');
    }
  }
  const format = typeOf(body.response_format);
  if (!absent(body.response_format) && format !== 'text') {
    refuse('response_format', 'may only be {"type": "text"}: an agent answers in text');
  }
  if (body.logprobs === true) {
    refuse('logprobs', 'cannot be true: an agent’s answer has no log probabilities to report');
  }
  const modalities = body.modalities;
  if (
    !absent(modalities) &&
    !(Array.isArray(modalities) && modalities.every((m) => m === 'text'))
  ) {
    refuse('modalities', 'may only be ["text"]: an agent answers in text');
  }
  if (!absent(body.audio)) refuse('audio', 'is not taken: an agent answers in text');
  return refused;
}
