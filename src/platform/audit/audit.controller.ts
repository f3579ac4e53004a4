import { Controller, Get, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermissions } from '../auth/auth.decorators.js';
import type { Principal } from '../auth/principal.js';
import type { RecordedAuditEvent } from './audit-event.js';
import { AuditSink } from './audit-sink.js';
import { AuditQueryDto } from './dto/audit-query.dto.js';

@Controller('v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditSink) {}

  /**
   * Recent audit events, newest first. A tenant-bound key only ever sees its own tenant's events;
   * an unbound key sees every tenant's unless it names one.
   */
  @RequirePermissions('audit:read')
  @Get()
  list(
    @Query() query: AuditQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): { events: RecordedAuditEvent[] } {
    const tenantId = principal.tenantId ?? query.tenant_id;
    return { events: this.audit.list({ tenantId, kind: query.kind, limit: query.limit }) };
  }
}
