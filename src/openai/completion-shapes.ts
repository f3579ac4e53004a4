import type { RunUsage } from '../providers/usage.js';
import type { RunRecord } from '../runs/record/run-record.js';

/** OpenAI's `finish_reason` of a settled run: a run cut off by its turn limit says `length`. */
export function finishReasonOf(run: RunRecord): 'stop' | 'length' {
  return run.finish_reason === 'length' || run.finish_reason === 'max_turns' ? 'length' : 'stop';
}

/** The completion's id: the run's, so a client can find the run (`GET /v1/runs/{id}`). */
export const completionId = (runId: string) => `chatcmpl-${runId}`;

/** Seconds since the epoch the run started (OpenAI's `created`). */
export const createdOf = (run: RunRecord) => Math.floor(Date.parse(run.started_at) / 1000);

/**
 * The run's usage as OpenAI reports it (its three totals; the run record has them per model
 * too); zero while no model call reported any.
 */
export function usageOf(run: RunRecord): Omit<RunUsage, 'by_model'> {
  const { prompt_tokens = 0, completion_tokens = 0, total_tokens = 0 } = run.usage ?? {};
  return { prompt_tokens, completion_tokens, total_tokens };
}

/** A completed run as a `chat.completion`. */
export function toCompletion(run: RunRecord) {
  return {
    id: completionId(run.run_id),
    object: 'chat.completion' as const,
    created: createdOf(run),
    model: run.agent,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content: run.text, refusal: null },
        logprobs: null,
        finish_reason: finishReasonOf(run),
      },
    ],
    usage: usageOf(run),
    system_fingerprint: null,
  };
}

/** One `chat.completion.chunk` of a streamed run. */
export function toChunk(
  run: { run_id: string; created: number; agent: string },
  delta: { role?: 'assistant'; content?: string },
  finishReason: 'stop' | 'length' | null = null,
) {
  return {
    id: completionId(run.run_id),
    object: 'chat.completion.chunk' as const,
    created: run.created,
    model: run.agent,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    system_fingerprint: null,
  };
}

/** The last chunk of a stream that asked for usage (`stream_options.include_usage`). */
export function usageChunk(
  run: { run_id: string; created: number; agent: string },
  usage: RunUsage,
) {
  return {
    id: completionId(run.run_id),
    object: 'chat.completion.chunk' as const,
    created: run.created,
    model: run.agent,
    choices: [],
    usage,
    system_fingerprint: null,
  };
}

/** An agent as an entry of `GET /v1/models`. */
export function toModel(name: string, tenantId: string, createdMs: number) {
  return {
    id: name,
    object: 'model' as const,
    created: Math.floor(createdMs / 1000),
    owned_by: tenantId,
  };
}
