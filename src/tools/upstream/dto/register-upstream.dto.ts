import { IsObject, IsString, IsUrl, Matches, MaxLength } from 'class-validator';
import { BoundedArray } from '../../../platform/http/dto/bounded-array.js';
import { TenantId } from '../../../platform/http/dto/identifier.js';
import { IfPresent } from '../../../platform/http/dto/if-present.js';
import { RawJson } from '../../../platform/http/dto/raw-json.js';
import type { JsonValue } from '../../../platform/state/state-store.js';
import { MAX_ENDPOINT_URL, MAX_TOOLS_PER_TOOLSET } from '../../tool.limits.js';
import { PREFIX_MESSAGE, PREFIX_PATTERN, UPSTREAM_TOOL_NAME_PATTERN } from '../upstream.limits.js';

/** `PUT /v1/toolsets/{toolset}/upstreams/{name}`: registers or replaces an upstream MCP server. */
export class RegisterUpstreamDto {
  @TenantId() tenant_id!: string;

  /** The server's Streamable HTTP endpoint. No credentials in it: they belong in `headers`. */
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

  /** Sent on every request to the server; names and values are checked by the service. */
  @IfPresent() @IsObject() @RawJson() headers?: { [name: string]: JsonValue };

  /** The upstream tool names to offer (an allow-list); absent offers all of them. */
  @IfPresent()
  @BoundedArray(MAX_TOOLS_PER_TOOLSET)
  @IsString({ each: true })
  @Matches(UPSTREAM_TOOL_NAME_PATTERN, {
    each: true,
    message: 'each of tools must be a tool name of 1 to 128 letters, digits, "_", "." or "-"',
  })
  tools?: string[];

  /** Put in front of every upstream tool name; default `{name}_`, `""` for none. */
  @IfPresent() @IsString() @Matches(PREFIX_PATTERN, { message: PREFIX_MESSAGE }) prefix?: string;
}
