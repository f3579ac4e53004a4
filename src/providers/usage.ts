import type { ProviderConfig } from '../platform/config/gateway-config.js';
import type { ChatMessage, ChatUsage } from './chat.types.js';

/** One model's share of a run's usage: its calls and their tokens. */
export interface ModelUsage {
  prompt_tokens: number;
  completion_tokens: number;
  calls: number;
}

/** Tokens a run's model calls used, summed over its calls (the run record's `usage`). */
export interface RunUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /**
   * The same per model (the model each call asked for). Absent in records written before the
   * gateway kept it (issue 17): their totals stand alone.
   */
  by_model?: { [model: string]: ModelUsage };
}

/** The model a call asks for: the request's, else SVC_MODEL, else `default`, as providers send. */
export function requestedModel(
  model: string | undefined,
  provider: Pick<ProviderConfig, 'model'>,
): string {
  return model ?? provider.model ?? 'default';
}

/**
 * `total` plus one call's usage, a call of `model`; a call whose provider reported nothing
 * adds nothing.
 */
export function addUsage(
  total: RunUsage | undefined,
  call: ChatUsage | undefined,
  model: string,
): RunUsage | undefined {
  if (!call) return total;
  const prompt = call.prompt_tokens ?? 0;
  const completion = call.completion_tokens ?? 0;
  const sum = call.total_tokens ?? prompt + completion;
  const before = total?.by_model?.[model];
  return {
    prompt_tokens: (total?.prompt_tokens ?? 0) + prompt,
    completion_tokens: (total?.completion_tokens ?? 0) + completion,
    total_tokens: (total?.total_tokens ?? 0) + sum,
    by_model: {
      ...total?.by_model,
      [model]: {
        prompt_tokens: (before?.prompt_tokens ?? 0) + prompt,
        completion_tokens: (before?.completion_tokens ?? 0) + completion,
        calls: (before?.calls ?? 0) + 1,
      },
    },
  };
}

/**
 * A token count for text no tokenizer has seen: about four characters a token, the usual rule
 * of thumb for English with OpenAI's tokenizers. Only the echo provider, which has no model to
 * ask, reports usage this way.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The estimated usage of one call of the echo provider: its input, then its answer. */
export function estimatedUsage(messages: readonly ChatMessage[], answer: string): ChatUsage {
  const prompt = messages.reduce((sum, message) => sum + estimateTokens(message.content), 0);
  const completion = estimateTokens(answer);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}
