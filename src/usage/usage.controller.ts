import { Controller, Get } from '@nestjs/common';
import { RequirePermissions } from '../platform/auth/auth.decorators.js';
import { ValidQuery } from '../platform/http/validated-params.js';
import { UsageQueryDto } from './dto/usage-query.dto.js';
import { type UsageReport, UsageReports } from './usage-reports.service.js';

/**
 * `GET /v1/usage?tenant_id=&from=&to=`: a tenant's token usage (CONTRACT 10). The guard keeps a
 * tenant-bound key to its own tenant.
 */
@Controller('v1/usage')
export class UsageController {
  constructor(private readonly reports: UsageReports) {}

  @RequirePermissions('usage:read')
  @Get()
  report(@ValidQuery() query: UsageQueryDto): Promise<UsageReport> {
    return this.reports.report(query.tenant_id, query.from, query.to);
  }
}
