import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, RequirePermissions } from '../auth/auth.decorators.js';
import type { Principal } from '../auth/principal.js';
import { ValidQuery } from '../http/validated-params.js';
import type { RecordedAuditEvent } from './audit-event.js';
import { decodeAuditCursor, encodeAuditCursor } from './audit-cursor.js';
import { streamAuditExport } from './audit-export.js';
import { auditFilterOf } from './audit-request.js';
import { AuditSink } from './audit-sink.js';
import { AuditFilterDto, AuditQueryDto } from './dto/audit-query.dto.js';

export interface AuditPage {
  events: RecordedAuditEvent[];
  /** Where the next (older) page starts; null when this page holds the oldest selected event. */
  next_cursor: string | null;
}

@Controller('v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditSink) {}

  /** Audit events, newest first, one page at a time. */
  @RequirePermissions('audit:read')
  @Get()
  async list(
    @ValidQuery() query: AuditQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AuditPage> {
    const limit = query.limit ?? 100;
    // One more than asked tells whether another page exists.
    const found = await this.audit.list({
      ...auditFilterOf(query, principal),
      limit: limit + 1,
      beforeId: query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor),
    });
    const events = found.slice(0, limit);
    const more = found.length > limit;
    return { events, next_cursor: more ? encodeAuditCursor(events.at(-1)!.id) : null };
  }

  /** Every selected event as JSON lines (`application/x-ndjson`), newest first. */
  @RequirePermissions('audit:read')
  @Get('export')
  async export(
    @ValidQuery() query: AuditFilterDto,
    @CurrentPrincipal() principal: Principal,
    @Res() res: Response,
  ): Promise<void> {
    await streamAuditExport(this.audit, auditFilterOf(query, principal), res);
  }
}
