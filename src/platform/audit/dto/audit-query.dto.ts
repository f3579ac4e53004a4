import { Type } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { NoControlCharacters } from '../../http/dto/identifier.js';
import { IfPresent } from '../../http/dto/if-present.js';
import { MAX_TENANT_ID } from '../../state/state-key.limits.js';

export class AuditQueryDto {
  @IfPresent() @IsString() @MaxLength(MAX_TENANT_ID) @NoControlCharacters() tenant_id?: string;
  @IfPresent() @IsString() @MaxLength(64) kind?: string;
  @IfPresent() @Type(() => Number) @IsInt() @Min(1) @Max(1000) limit?: number;
}
