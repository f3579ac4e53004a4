import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { MAX_TENANT_ID } from '../../state/state-key.limits.js';

/** `?tenant_id=`: required on every tenant-scoped read (spec section 4, note 3). */
export class TenantQueryDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TENANT_ID)
  tenant_id!: string;
}
