import { Controller, Get, Post, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsOptional, IsString, Max, ValidateNested } from 'class-validator';
import { CurrentPrincipal, RequirePermissions } from '../../src/platform/auth/auth.decorators.js';
import type { Principal } from '../../src/platform/auth/principal.js';
import { ValidBody } from '../../src/platform/http/validated-params.js';

class Item {
  @IsString() name!: string;
}

class TenantRequestDto {
  @IsString() @IsNotEmpty() tenant_id!: string;
  @IsOptional() @IsInt() @Max(10) count?: number;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => Item) items?: Item[];
}

/**
 * Stands in for the tenant-scoped, permission-gated routes that later issues add, so the global
 * guards and filter and the validation pipe are tested on real routes of the real app today.
 */
@Controller('stand-in')
export class StandInController {
  @Post('tenant')
  tenant(@ValidBody() body: TenantRequestDto, @CurrentPrincipal() principal: Principal) {
    return { tenant_id: body.tenant_id, key: principal.keyId, body_type: body.constructor.name };
  }

  @Get('tenant')
  tenantQuery(@Query('tenant_id') tenantId: string) {
    return { tenant_id: tenantId };
  }

  @RequirePermissions('approve:*')
  @Post('approve')
  approve(@ValidBody() body: TenantRequestDto) {
    return { approved: body.tenant_id };
  }

  @RequirePermissions('studio:read')
  @Get('studio')
  studio() {
    return { ok: true };
  }

  @Get('crash')
  crash(): never {
    throw new Error('internal detail: connection string postgres://user:pw@db/x');
  }
}
