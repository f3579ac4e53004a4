import { IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import type { JsonValue } from '../../state/state-store.js';
import { MAX_TENANT_ID } from '../../state/state-key.limits.js';
import { RawJson } from '../../http/dto/raw-json.js';

/** `POST /v1/tools/{toolset}/{name}`. */
export class CallToolDto {
  @IsString() @IsNotEmpty() @MaxLength(MAX_TENANT_ID) tenant_id!: string;

  /** Checked against the tool's schema by the executor (422); an object, `{}` when omitted. */
  @IsOptional() @IsObject() @RawJson() arguments?: { [key: string]: JsonValue };
}
