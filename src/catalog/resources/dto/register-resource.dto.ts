import { IsBase64, IsString, Matches, MaxLength } from 'class-validator';
import { TenantId } from '../../../platform/http/dto/identifier.js';
import { IfPresent } from '../../../platform/http/dto/if-present.js';
import { MAX_DESCRIPTION, NAME_MESSAGE, NAME_PATTERN } from '../../../tools/tool.limits.js';
import { MAX_RESOURCE_CONTENT, MAX_URI } from '../resource.types.js';

const MAX_TITLE = 256;
const MAX_MIME = 128;
/** `scheme:rest`, as RFC 3986 starts a URI; the rest is the client's business. */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;

/** `/v1/resources/{name}`. */
export class ResourcePathDto {
  @Matches(NAME_PATTERN, { message: `name ${NAME_MESSAGE}` }) name!: string;
}

/**
 * `PUT /v1/resources/{name}`: registers or replaces a resource (`uri`) or a resource template
 * (`uri_template`), with its content as `text` or base64 `blob` (the service checks that exactly
 * one of each pair is given).
 */
export class RegisterResourceDto {
  @TenantId() tenant_id!: string;
  @IfPresent()
  @Matches(URI, { message: 'uri must be an absolute URI (scheme:…)' })
  @MaxLength(MAX_URI)
  uri?: string;
  @IfPresent()
  @Matches(URI, { message: 'uri_template must be an absolute URI template (scheme:…)' })
  @MaxLength(MAX_URI)
  uri_template?: string;
  @IfPresent() @IsString() @MaxLength(MAX_TITLE) title?: string;
  @IfPresent() @IsString() @MaxLength(MAX_DESCRIPTION) description?: string;
  @IfPresent() @IsString() @MaxLength(MAX_MIME) mime_type?: string;
  @IfPresent() @IsString() @MaxLength(MAX_RESOURCE_CONTENT) text?: string;
  @IfPresent() @IsBase64() @MaxLength(MAX_RESOURCE_CONTENT) blob?: string;
}
