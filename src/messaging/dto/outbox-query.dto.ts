import { Type } from 'class-transformer';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { IfPresent } from '../../platform/http/dto/if-present.js';
import { TenantQueryDto } from '../../platform/http/dto/tenant-query.dto.js';
import { OUTBOX_STATUSES, type OutboxStatus } from '../outbox-entry.js';

/** GET /v1/messaging/outbox?tenant_id=&status=&limit= */
export class OutboxQueryDto extends TenantQueryDto {
  @IfPresent() @IsIn(OUTBOX_STATUSES) status?: OutboxStatus;
  @IfPresent() @Type(() => Number) @IsInt() @Min(1) @Max(500) limit?: number;
}
