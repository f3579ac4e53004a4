import { IsBoolean, IsIn, IsString, Matches, MaxLength } from 'class-validator';
import { BoundedArray } from '../../platform/http/dto/bounded-array.js';
import { IfPresent } from '../../platform/http/dto/if-present.js';

export const MAX_TITLE = 256;
export const MAX_ICONS = 8;
/** An icon's `src`: an https URL, or a small data: image. */
export const MAX_ICON_SRC = 16 * 1024;
/** Clients fetch an icon: https only (or inline data), never the gateway's network. */
export const ICON_SRC_PATTERN =
  /^(https:\/\/\S+|data:image\/[a-z0-9.+-]+(;[a-z0-9=.+-]+)*;base64,[A-Za-z0-9+/=]+)$/;

export class ToolAnnotationsDto {
  @IfPresent() @IsString() @MaxLength(MAX_TITLE) title?: string;
  @IfPresent() @IsBoolean() readOnlyHint?: boolean;
  @IfPresent() @IsBoolean() destructiveHint?: boolean;
  @IfPresent() @IsBoolean() idempotentHint?: boolean;
  @IfPresent() @IsBoolean() openWorldHint?: boolean;
}

export class ToolIconDto {
  @Matches(ICON_SRC_PATTERN, {
    message: 'src must be an https: URL or a base64 data:image/… URL',
  })
  @MaxLength(MAX_ICON_SRC)
  src!: string;

  @IfPresent() @IsString() @MaxLength(128) mimeType?: string;

  @IfPresent()
  @BoundedArray(8)
  @Matches(/^(\d+x\d+|any)$/, { each: true, message: 'sizes must be like "48x48" or "any"' })
  sizes?: string[];

  @IfPresent() @IsIn(['light', 'dark']) theme?: 'light' | 'dark';
}
