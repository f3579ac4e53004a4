import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { TenantQueryDto } from '../../http/dto/tenant-query.dto.js';
import { OUTBOX_STATUSES, type OutboxStatus } from '../outbox-entry.js';

/** GET /v1/messaging/outbox?tenant_id=&status=&limit= */
export class OutboxQueryDto extends TenantQueryDto {
  @IsOptional() @IsIn(OUTBOX_STATUSES) status?: OutboxStatus;
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500) limit?: number;
}
