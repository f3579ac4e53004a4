import { Controller, Get, NotFoundException } from '@nestjs/common';
import { RequirePermissions } from '../../platform/auth/auth.decorators.js';
import { TenantQueryDto } from '../../platform/http/dto/tenant-query.dto.js';
import { ValidParams, ValidQuery } from '../../platform/http/validated-params.js';
import { ResponseSchema } from '../../platform/openapi/response-schema.js';
import { KeptSpans } from '../../platform/telemetry/kept-spans.js';
import { RunPathDto } from '../dto/run-path.dto.js';
import { RunRecordStore } from '../record/run-record.store.js';
import { type RunSpans, runSpans } from './run-spans.js';
import { RUN_SPANS_SCHEMA } from './run-spans.schema.js';

@Controller('v1/runs')
export class RunSpansController {
  constructor(
    private readonly records: RunRecordStore,
    private readonly spans: KeptSpans,
  ) {}

  /**
   * The run's spans that this replica keeps in memory (no collector configured): a debugging
   * view, like the ring it reads. With a collector the answer says so (`kept: false`) and the
   * run's `trace_id` is where to look.
   */
  @RequirePermissions('runs:read')
  @Get(':run_id/spans')
  @ResponseSchema(RUN_SPANS_SCHEMA)
  async list(
    @ValidParams() { run_id: runId }: RunPathDto,
    @ValidQuery() { tenant_id: tenantId }: TenantQueryDto,
  ): Promise<RunSpans> {
    const run = await this.records.get(tenantId, runId);
    if (!run) throw new NotFoundException(`no run ${JSON.stringify(runId)} for this tenant`);
    return runSpans(this.spans, run);
  }
}
