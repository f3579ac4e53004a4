import { TenantId } from '../../platform/http/dto/identifier.js';

/** POST /v1/runs/{run_id}/cancel */
export class CancelDto {
  @TenantId() tenant_id!: string;
}
