import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { TenantId } from '../../platform/http/dto/identifier.js';
import { IfPresent } from '../../platform/http/dto/if-present.js';

/** The longest `?wait=` in seconds: below the idle timeouts of common proxies and balancers. */
export const MAX_RUN_WAIT_S = 60;

/** GET /v1/runs/{run_id}?tenant_id=&wait= */
export class RunQueryDto {
  @TenantId() tenant_id!: string;

  /** Long-poll: answer once the run is no longer queued or running, or after this many seconds. */
  @IfPresent()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value,
  )
  @IsInt({ message: 'wait must be a whole number of seconds' })
  @Min(0)
  @Max(MAX_RUN_WAIT_S)
  wait?: number;
}
