import { Controller, Get, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermissions } from '../platform/auth/auth.decorators.js';
import type { Principal } from '../platform/auth/principal.js';
import { StudioQueryDto } from './dto/studio-query.dto.js';
import type { StudioSnapshot } from './studio-records.js';
import { StudioStore } from './studio.store.js';

/** The dashboard endpoint (spec section 4). */
@Controller('v1/studio')
export class StudioController {
  constructor(private readonly store: StudioStore) {}

  /**
   * This replica's sessions and loops, newest first, with their counts. A tenant-bound key sees
   * its own tenant (naming another is 403 in the AuthGuard); an unbound key sees every tenant
   * unless it names one.
   */
  @RequirePermissions('studio:read')
  @Get()
  snapshot(
    @Query() query: StudioQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): StudioSnapshot {
    return this.store.snapshot(query.tenant_id ?? principal.tenantId, query.limit);
  }
}
