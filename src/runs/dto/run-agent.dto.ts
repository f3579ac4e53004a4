import {
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { NoControlCharacters, TenantId } from '../../platform/http/dto/identifier.js';
import { IfPresent } from '../../platform/http/dto/if-present.js';
import { NestedArray } from '../../platform/http/dto/nested.js';
import { RawJson } from '../../platform/http/dto/raw-json.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import { MAX_SESSION_ID } from '../../platform/state/state-key.limits.js';
import { MAX_INPUT_CHARS, MAX_INPUT_MESSAGES } from '../run-input.limits.js';

/** Identifiers a client may choose: readable, bounded, safe in paths and logs. */
const ID = /^[A-Za-z0-9_.:-]+$/;
const ID_MESSAGE = { message: '$property may only hold letters, digits and _ . : -' };

export const MAX_TURNS_LIMIT = 100;

export class InputMessageDto {
  @IsIn(['system', 'user', 'assistant'])
  role!: 'system' | 'user' | 'assistant';

  @IsString()
  @MaxLength(MAX_INPUT_CHARS)
  content!: string;
}

/** POST /v1/agent/run (CONTRACT section 5). */
export class RunAgentDto {
  @TenantId() tenant_id!: string;

  @IfPresent() @IsString() @MaxLength(MAX_INPUT_CHARS) prompt?: string;

  @IfPresent()
  @NestedArray(() => InputMessageDto, { max: MAX_INPUT_MESSAGES })
  messages?: InputMessageDto[];

  @IfPresent() @IsString() @MaxLength(128) @Matches(ID, ID_MESSAGE) agent?: string;
  @IfPresent() @IsString() @MaxLength(256) @NoControlCharacters() model?: string;
  @IfPresent() @IsString() @MaxLength(64) @Matches(ID, ID_MESSAGE) toolset?: string;
  @IfPresent()
  @IsString()
  @MaxLength(MAX_SESSION_ID - 16)
  @Matches(ID, ID_MESSAGE)
  session_id?: string;
  @IfPresent() @IsString() @MaxLength(200) @Matches(ID, ID_MESSAGE) run_id?: string;
  @IfPresent() @IsInt() @Min(1) @Max(MAX_TURNS_LIMIT) max_turns?: number;
  @IfPresent() @IsObject() @RawJson() metadata?: { [key: string]: JsonValue };

  /** What a second run on a busy session does: wait for the first (default) or fail with 409. */
  @IfPresent() @IsIn(['enqueue', 'reject']) multitask?: 'enqueue' | 'reject';

  /** Answer `text/event-stream` with the run's events as they happen (also `Accept`). */
  @IfPresent() @IsBoolean() stream?: boolean;

  /** Answer 202 with `Location: /v1/runs/{id}` once the run is recorded; it goes on here. */
  @IfPresent() @IsBoolean() background?: boolean;

  /** An http(s) URL that receives the settled run, signed (see README, Background runs). */
  @IfPresent()
  @IsString()
  @MaxLength(2048)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  webhook?: string;
}
