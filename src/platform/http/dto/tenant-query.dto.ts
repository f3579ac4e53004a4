import { TenantId } from './identifier.js';

/** `?tenant_id=`: required on every tenant-scoped read (spec section 4, note 3). */
export class TenantQueryDto {
  @TenantId() tenant_id!: string;
}
