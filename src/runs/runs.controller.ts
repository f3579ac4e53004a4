import { Controller, Get, NotFoundException, Param, Query } from '@nestjs/common';
import { RequirePermissions } from '../platform/auth/auth.decorators.js';
import { TenantQueryDto } from '../platform/http/dto/tenant-query.dto.js';
import { RunPathDto } from './dto/run-path.dto.js';
import type { RunRecord } from './record/run-record.js';
import { runView } from './record/run-record.mapper.js';
import { RunRecordStore } from './record/run-record.store.js';

@Controller('v1/runs')
export class RunsController {
  constructor(private readonly runs: RunRecordStore) {}

  /** A run's status and result, from any replica (while it runs, too). */
  @RequirePermissions('runs:read')
  @Get(':run_id')
  async get(
    @Param() { run_id: runId }: RunPathDto,
    @Query() query: TenantQueryDto,
  ): Promise<RunRecord> {
    const run = await this.runs.get(query.tenant_id, runId);
    if (!run) throw new NotFoundException(`no run ${JSON.stringify(runId)} for this tenant`);
    return runView(run);
  }
}
