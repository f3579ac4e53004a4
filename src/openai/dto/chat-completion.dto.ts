import {
  Allow,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { IfPresent, IfSet } from '../../platform/http/dto/if-present.js';
import { Nested, NestedArray } from '../../platform/http/dto/nested.js';
import { RawJson } from '../../platform/http/dto/raw-json.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import { MAX_INPUT_MESSAGES } from '../../runs/run-input.limits.js';

/*
 * OpenAI's request marks most settings `T | null`, null meaning "the default": those fields use
 * `@IfSet()` (which skips null as well as absence), unlike the REST API's `@IfPresent()`.
 */

/** One message of the conversation, as OpenAI's Chat Completions API takes it. */
export class WireMessageDto {
  @IsIn(['system', 'developer', 'user', 'assistant', 'tool', 'function'])
  role!: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';

  /** A string, an array of content parts (text parts are read), or null (an assistant's). */
  @RawJson() @Allow() content!: JsonValue;

  @IfSet() @IsString() @MaxLength(256) name?: string | null;
  /** An assistant's tool calls, or a tool message's call id: accepted to be refused clearly. */
  @IfSet() @RawJson() @Allow() tool_calls?: JsonValue;
  @IfSet() @IsString() @MaxLength(256) tool_call_id?: string | null;
  /** The deprecated `functions` protocol's call: refused like tool calls. */
  @IfSet() @RawJson() @Allow() function_call?: JsonValue;
  @IfSet() @RawJson() @Allow() refusal?: JsonValue;
  /** A reference to an earlier audio answer (the agent answers in text): ignored. */
  @IfSet() @RawJson() @Allow() audio?: JsonValue;
}

export class StreamOptionsDto {
  /** Adds a last chunk with the run's `usage` (and no choices), as OpenAI does. */
  @IfSet() @IsBoolean() include_usage?: boolean | null;
  /** OpenAI's padding of stream events against side channels: nothing to pad here, ignored. */
  @IfSet() @IsBoolean() include_obfuscation?: boolean | null;
}

/**
 * `POST /v1/chat/completions`: OpenAI's whole request body (README "OpenAI-compatible
 * endpoint" says what each field does here). `model` names the agent and `messages` are its
 * input; `stream`, `stream_options.include_usage`, `metadata` and `user` are applied; the
 * sampling and output settings are accepted and left to the agent's provider configuration
 * (an agent is many model calls, not one); what would change the answer in a way an agent
 * cannot honour is refused by `refusedFields` (more than one choice, client-side tools,
 * structured or audio output, log probabilities).
 */
export class ChatCompletionDto {
  @IsString()
  @MaxLength(128)
  @Matches(/^[A-Za-z0-9_.:-]+$/, { message: 'model must name an agent' })
  model!: string;

  @NestedArray(() => WireMessageDto, { max: MAX_INPUT_MESSAGES, min: 1 })
  messages!: WireMessageDto[];

  @IfSet() @IsBoolean() stream?: boolean | null;
  @IfSet() @Nested(() => StreamOptionsDto) stream_options?: StreamOptionsDto | null;

  /** The end user: kept in the run's metadata as `user`. */
  @IfPresent() @IsString() @MaxLength(256) user?: string;
  /** OpenAI's stable end-user id (the successor of `user`): the run's metadata too. */
  @IfPresent() @IsString() @MaxLength(256) safety_identifier?: string;
  /** OpenAI's string map: the run's metadata. */
  @IfSet() @IsObject() @RawJson() metadata?: { [key: string]: JsonValue } | null;

  /** Choices to generate: a run has one answer, so only 1 (checked in refusedFields). */
  @IfSet() @IsInt() @Min(1) @Max(128) n?: number | null;

  // Accepted, not applied: the agent's provider configuration decides these.
  @IfSet() @IsNumber() @Min(0) @Max(2) temperature?: number | null;
  @IfSet() @IsNumber() @Min(0) @Max(1) top_p?: number | null;
  @IfSet() @IsInt() @Min(1) max_tokens?: number | null;
  @IfSet() @IsInt() @Min(1) max_completion_tokens?: number | null;
  @IfSet() @IsNumber() @Min(-2) @Max(2) presence_penalty?: number | null;
  @IfSet() @IsNumber() @Min(-2) @Max(2) frequency_penalty?: number | null;
  @IfSet() @IsObject() @RawJson() logit_bias?: { [token: string]: JsonValue } | null;
  @IfSet() @IsInt() seed?: number | null;
  @IfSet() @RawJson() @Allow() stop?: JsonValue;
  @IfSet() @IsBoolean() store?: boolean | null;
  @IfSet() @IsBoolean() parallel_tool_calls?: boolean | null;
  @IfSet() @IsString() @MaxLength(64) service_tier?: string | null;
  @IfSet() @IsString() @MaxLength(64) reasoning_effort?: string | null;
  @IfSet() @IsString() @MaxLength(64) verbosity?: string | null;
  @IfSet() @IsString() @MaxLength(1024) prompt_cache_key?: string | null;
  @IfSet() @IsString() @MaxLength(64) prompt_cache_retention?: string | null;
  /** A predicted answer (a latency hint): ignored. */
  @IfSet() @RawJson() @Allow() prediction?: JsonValue;
  /** The model's own web search: an agent searches with its toolset's tools, if any. Ignored. */
  @IfSet() @RawJson() @Allow() web_search_options?: JsonValue;

  // Accepted and checked by refusedFields: honoured when they ask for what the agent does anyway.
  @IfSet() @IsBoolean() logprobs?: boolean | null;
  @IfSet() @IsInt() @Min(0) @Max(20) top_logprobs?: number | null;
  @IfSet() @RawJson() @Allow() modalities?: JsonValue;
  @IfSet() @RawJson() @Allow() audio?: JsonValue;
  @IfSet() @RawJson() @Allow() response_format?: JsonValue;
  @IfSet() @RawJson() @Allow() tools?: JsonValue;
  @IfSet() @RawJson() @Allow() tool_choice?: JsonValue;
  @IfSet() @RawJson() @Allow() functions?: JsonValue;
  @IfSet() @RawJson() @Allow() function_call?: JsonValue;
}
