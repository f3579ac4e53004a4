import { IsIn, IsObject, IsString, IsUrl, MaxLength } from 'class-validator';
import { TenantId } from '../../platform/http/dto/identifier.js';
import { IfPresent } from '../../platform/http/dto/if-present.js';
import { Nested, NestedArray } from '../../platform/http/dto/nested.js';
import { RawJson } from '../../platform/http/dto/raw-json.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import { MAX_DESCRIPTION, MAX_ENDPOINT_URL } from '../tool.limits.js';
import { MAX_ICONS, MAX_TITLE, ToolAnnotationsDto, ToolIconDto } from './tool-presentation.dto.js';

export class ToolEndpointDto {
  // No credentials in the URL: fetch refuses them, and they would show in every listing.
  @IsUrl(
    {
      protocols: ['http', 'https'],
      require_protocol: true,
      require_tld: false,
      allow_underscores: true,
      disallow_auth: true,
    },
    { message: 'url must be an absolute http:// or https:// URL without credentials' },
  )
  @MaxLength(MAX_ENDPOINT_URL)
  url!: string;

  /**
   * `http` (default): the tool's arguments are POSTed to `url`. `a2a`: `url` is a remote A2A
   * agent (its card's base, or the card itself) that gets the arguments as a message.
   */
  @IfPresent() @IsIn(['http', 'a2a']) protocol?: 'http' | 'a2a';

  /**
   * `a2a` only: headers sent on every request to the agent (its credentials). Their names and
   * values are checked by the registration service; values are never shown back or logged.
   */
  @IfPresent() @IsObject() @RawJson() headers?: { [name: string]: JsonValue };
}

/** `PUT /v1/toolsets/{toolset}/tools/{name}`: registers or replaces an HTTP tool. */
export class RegisterToolDto {
  @TenantId() tenant_id!: string;

  @IsString() @MaxLength(MAX_DESCRIPTION) description!: string;

  /** The arguments' JSON Schema; checked with ajv by the registration service. */
  @IsObject() @RawJson() parameters!: { [key: string]: JsonValue };

  @Nested(() => ToolEndpointDto) endpoint!: ToolEndpointDto;

  /** How MCP clients present the tool (MCP `title`, `annotations`, `icons`). */
  @IfPresent() @IsString() @MaxLength(MAX_TITLE) title?: string;
  @IfPresent() @Nested(() => ToolAnnotationsDto) annotations?: ToolAnnotationsDto;
  @IfPresent() @NestedArray(() => ToolIconDto, { max: MAX_ICONS }) icons?: ToolIconDto[];

  /**
   * The JSON Schema (`type: object`) of the tool's structured result: an object answer is then
   * MCP `structuredContent`, and one that does not match is a tool error.
   */
  @IfPresent() @IsObject() @RawJson() output_schema?: { [key: string]: JsonValue };
}
