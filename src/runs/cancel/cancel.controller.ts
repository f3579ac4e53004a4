import { Controller, HttpCode, HttpStatus, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, RequirePermissions } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { ValidBody, ValidParams } from '../../platform/http/validated-params.js';
import { ResponseSchema } from '../../platform/openapi/response-schema.js';
import { RunPathDto } from '../dto/run-path.dto.js';
import type { RunRecord } from '../record/run-record.js';
import { runView } from '../record/run-record.mapper.js';
import { RUN_RECORD_SCHEMA } from '../record/run-record.schema.js';
import { CancelDto } from './cancel.dto.js';
import { RunCancels } from './run-cancels.service.js';

@Controller('v1/runs')
export class CancelController {
  constructor(private readonly cancels: RunCancels) {}

  /**
   * Cancels a queued, running or paused run on whichever replica holds it: 200 with the run once
   * it is `cancelled` (also when it already was), 202 with the run while the replica executing it
   * is still stopping it, 409 when it already ended otherwise.
   */
  @RequirePermissions('runs:write')
  @Post(':run_id/cancel')
  @HttpCode(200)
  @ResponseSchema(RUN_RECORD_SCHEMA, 200, 202)
  async cancel(
    @ValidParams() { run_id: runId }: RunPathDto,
    @ValidBody() body: CancelDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RunRecord> {
    const outcome = await this.cancels.cancel(body.tenant_id, runId, principal.keyId ?? null);
    if (!outcome.settled) response.status(HttpStatus.ACCEPTED);
    return runView(outcome.run);
  }
}
