import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_TENANT_ID } from '../../state/state-key.limits.js';

export class AuditQueryDto {
  @IsOptional() @IsString() @MaxLength(MAX_TENANT_ID) tenant_id?: string;
  @IsOptional() @IsString() @MaxLength(64) kind?: string;
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000) limit?: number;
}
