import { ArrayMinSize, IsBoolean, IsObject, IsString, Matches, MaxLength } from 'class-validator';
import { BoundedArray } from '../../../platform/http/dto/bounded-array.js';
import { TenantId } from '../../../platform/http/dto/identifier.js';
import { IfPresent } from '../../../platform/http/dto/if-present.js';
import { NestedArray } from '../../../platform/http/dto/nested.js';
import { RawJson } from '../../../platform/http/dto/raw-json.js';
import type { JsonValue } from '../../../platform/state/state-store.js';
import { MAX_DESCRIPTION, NAME_MESSAGE, NAME_PATTERN } from '../../../tools/tool.limits.js';
import { MAX_ARGUMENT_VALUES, MAX_PROMPT_ARGUMENTS, MAX_PROMPT_MESSAGES } from '../prompt.types.js';

const MAX_TITLE = 256;
const MAX_VALUE = 256;

/** `/v1/prompts/{name}`. */
export class PromptPathDto {
  @Matches(NAME_PATTERN, { message: `name ${NAME_MESSAGE}` }) name!: string;
}

export class PromptArgumentDto {
  @Matches(NAME_PATTERN, { message: `name ${NAME_MESSAGE}` }) name!: string;
  @IfPresent() @IsString() @MaxLength(MAX_TITLE) title?: string;
  @IfPresent() @IsString() @MaxLength(MAX_DESCRIPTION) description?: string;
  @IfPresent() @IsBoolean() required?: boolean;
  /** What a client's completion offers for this argument. */
  @IfPresent()
  @BoundedArray(MAX_ARGUMENT_VALUES)
  @IsString({ each: true })
  @MaxLength(MAX_VALUE, { each: true })
  values?: string[];
}

/** `PUT /v1/prompts/{name}`: registers or replaces a prompt template. */
export class RegisterPromptDto {
  @TenantId() tenant_id!: string;
  @IfPresent() @IsString() @MaxLength(MAX_TITLE) title?: string;
  @IfPresent() @IsString() @MaxLength(MAX_DESCRIPTION) description?: string;

  @IfPresent()
  @NestedArray(() => PromptArgumentDto, { max: MAX_PROMPT_ARGUMENTS })
  arguments?: PromptArgumentDto[];

  /** MCP prompt messages (`{role, content}`); checked against the MCP schema by the service. */
  @BoundedArray(MAX_PROMPT_MESSAGES)
  @ArrayMinSize(1)
  @IsObject({ each: true })
  @RawJson()
  messages!: JsonValue[];
}
