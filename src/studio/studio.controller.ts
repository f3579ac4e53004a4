import { Controller, Get } from '@nestjs/common';
import { CurrentPrincipal, RequirePermissions } from '../platform/auth/auth.decorators.js';
import type { Principal } from '../platform/auth/principal.js';
import { ValidQuery } from '../platform/http/validated-params.js';
import { ResponseSchema } from '../platform/openapi/response-schema.js';
import { StudioQueryDto } from './dto/studio-query.dto.js';
import type { StudioSnapshot } from './studio-records.js';
import { StudioStore } from './studio.store.js';
import { STUDIO_SNAPSHOT_SCHEMA } from './studio-snapshot.schema.js';

/** The dashboard endpoint (spec section 4). */
@Controller('v1/studio')
export class StudioController {
  constructor(private readonly store: StudioStore) {}

  /**
   * The sessions and loops, newest first, with their counts: this replica's with the memory
   * store, every replica's with the state store. A tenant-bound key sees its own tenant (naming
   * another is 403 in the AuthGuard); an unbound key sees every tenant unless it names one.
   */
  @RequirePermissions('studio:read')
  @Get()
  @ResponseSchema(STUDIO_SNAPSHOT_SCHEMA)
  snapshot(
    @ValidQuery() query: StudioQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<StudioSnapshot> {
    return this.store.snapshot(query.tenant_id ?? principal.tenantId, query.limit);
  }
}
