import { Controller, Get, NotFoundException, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RequirePermissions } from '../platform/auth/auth.decorators.js';
import { ValidParams, ValidQuery } from '../platform/http/validated-params.js';
import { ResponseSchema } from '../platform/openapi/response-schema.js';
import { RunPathDto } from './dto/run-path.dto.js';
import { RunQueryDto } from './dto/run-query.dto.js';
import { RunWaiter } from './lifecycle/run-waiter.js';
import type { RunRecord } from './record/run-record.js';
import { runView } from './record/run-record.mapper.js';
import { RUN_RECORD_SCHEMA } from './record/run-record.schema.js';

@Controller('v1/runs')
export class RunsController {
  constructor(private readonly waiter: RunWaiter) {}

  /**
   * A run's status and result, from any replica (while it runs, too). With `?wait=N` the answer
   * waits up to N seconds for a queued or running run to settle or pause.
   */
  @RequirePermissions('runs:read')
  @Get(':run_id')
  @ResponseSchema(RUN_RECORD_SCHEMA)
  async get(
    @ValidParams() { run_id: runId }: RunPathDto,
    @ValidQuery() query: RunQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RunRecord> {
    // The response closing before it was sent means the client went away: stop waiting for it.
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const run = await this.waiter.settledOrCurrent(
      query.tenant_id,
      runId,
      (query.wait ?? 0) * 1000,
      gone.signal,
    );
    if (!run) throw new NotFoundException(`no run ${JSON.stringify(runId)} for this tenant`);
    return runView(run);
  }
}
