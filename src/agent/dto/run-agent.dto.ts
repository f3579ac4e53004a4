import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { RawJson } from '../../http/dto/raw-json.js';
import type { JsonValue } from '../../state/state-store.js';
import { MAX_SESSION_ID, MAX_TENANT_ID } from '../../state/state-key.limits.js';

/** Identifiers a client may choose: readable, bounded, safe in paths and logs. */
const ID = /^[A-Za-z0-9_.:-]+$/;
const ID_MESSAGE = { message: '$property may only hold letters, digits and _ . : -' };

export const MAX_TURNS_LIMIT = 100;

export class InputMessageDto {
  @IsIn(['system', 'user', 'assistant'])
  role!: 'system' | 'user' | 'assistant';

  @IsString()
  @MaxLength(200_000)
  content!: string;
}

/** POST /v1/agent/run (CONTRACT section 5). */
export class RunAgentDto {
  @IsString() @IsNotEmpty() @MaxLength(MAX_TENANT_ID) tenant_id!: string;

  @IsOptional() @IsString() @MaxLength(200_000) prompt?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => InputMessageDto)
  messages?: InputMessageDto[];

  @IsOptional() @IsString() @MaxLength(128) @Matches(ID, ID_MESSAGE) agent?: string;
  @IsOptional() @IsString() @MaxLength(256) model?: string;
  @IsOptional() @IsString() @MaxLength(64) @Matches(ID, ID_MESSAGE) toolset?: string;
  @IsOptional()
  @IsString()
  @MaxLength(MAX_SESSION_ID - 16)
  @Matches(ID, ID_MESSAGE)
  session_id?: string;
  @IsOptional() @IsString() @MaxLength(200) @Matches(ID, ID_MESSAGE) run_id?: string;
  @IsOptional() @IsInt() @Min(1) @Max(MAX_TURNS_LIMIT) max_turns?: number;
  @IsOptional() @IsObject() @RawJson() metadata?: { [key: string]: JsonValue };

  /** What a second run on a busy session does: wait for the first (default) or fail with 409. */
  @IsOptional() @IsIn(['enqueue', 'reject']) multitask?: 'enqueue' | 'reject';
}
