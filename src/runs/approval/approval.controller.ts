import { Controller, HttpCode, HttpStatus, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, RequirePermissions } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { ValidBody, ValidParams } from '../../platform/http/validated-params.js';
import { ResponseSchema } from '../../platform/openapi/response-schema.js';
import { RunPathDto } from '../dto/run-path.dto.js';
import type { RunRecord } from '../record/run-record.js';
import { RUN_RECORD_SCHEMA } from '../record/run-record.schema.js';
import { ApprovalService } from './approval.service.js';
import { DecisionDto } from './dto/decision.dto.js';

/**
 * Approve or deny a paused graph node (spec sections 3 and 5): both need `approve:*`. The answer
 * is the run afterwards: 200 when it ended, 202 when it paused again at another node.
 */
@Controller('v1/runs')
export class ApprovalController {
  constructor(private readonly approvals: ApprovalService) {}

  @RequirePermissions('approve:*')
  @Post(':run_id/approve')
  @HttpCode(200)
  @ResponseSchema(RUN_RECORD_SCHEMA, 200, 202)
  approve(
    @ValidParams() { run_id: runId }: RunPathDto,
    @ValidBody() body: DecisionDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RunRecord> {
    return this.decide('approved', runId, body, principal, response);
  }

  @RequirePermissions('approve:*')
  @Post(':run_id/deny')
  @HttpCode(200)
  @ResponseSchema(RUN_RECORD_SCHEMA, 200, 202)
  deny(
    @ValidParams() { run_id: runId }: RunPathDto,
    @ValidBody() body: DecisionDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RunRecord> {
    return this.decide('denied', runId, body, principal, response);
  }

  private async decide(
    decision: 'approved' | 'denied',
    runId: string,
    body: DecisionDto,
    principal: Principal,
    response: Response,
  ): Promise<RunRecord> {
    const record = await this.approvals.decide({
      tenantId: body.tenant_id,
      runId,
      nodeId: body.node_id,
      decision,
      by: principal.keyId,
      comment: body.comment,
    });
    if (record.status === 'paused') response.status(HttpStatus.ACCEPTED);
    return record;
  }
}
