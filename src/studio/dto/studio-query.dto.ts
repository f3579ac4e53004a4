import { Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_TENANT_ID } from '../../state/state-key.limits.js';
import { STUDIO_MAX_LIMIT } from '../studio.store.js';

/** GET /v1/studio?tenant_id=&limit= (CONTRACT section 8). */
export class StudioQueryDto {
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(MAX_TENANT_ID) tenant_id?: string;
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(STUDIO_MAX_LIMIT) limit?: number;
}
