import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { TenantId } from '../../platform/http/dto/identifier.js';
import { IfPresent } from '../../platform/http/dto/if-present.js';

export const MAX_EVENTS_PAGE = 500;

const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;

/** GET /v1/runs/{run_id}/events?tenant_id=&after=&limit= */
export class RunEventsQueryDto {
  @TenantId() tenant_id!: string;

  /** The last event id received (like `Last-Event-ID`, which wins when both are sent). */
  @IfPresent()
  @Transform(toInteger)
  @IsInt({ message: 'after must be a whole number (an event id)' })
  @Min(0)
  after?: number;

  /** Events per page when not streaming. */
  @IfPresent()
  @Transform(toInteger)
  @IsInt({ message: 'limit must be a whole number' })
  @Min(1)
  @Max(MAX_EVENTS_PAGE)
  limit?: number;
}
