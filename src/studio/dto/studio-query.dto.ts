import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { TenantId } from '../../platform/http/dto/identifier.js';
import { IfPresent } from '../../platform/http/dto/if-present.js';
import { STUDIO_MAX_LIMIT } from '../studio.store.js';

/** GET /v1/studio?tenant_id=&limit= (CONTRACT section 8). */
export class StudioQueryDto {
  @IfPresent() @TenantId() tenant_id?: string;
  @IfPresent() @Type(() => Number) @IsInt() @Min(1) @Max(STUDIO_MAX_LIMIT) limit?: number;
}
