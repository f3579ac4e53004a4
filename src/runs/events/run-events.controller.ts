import { Controller, Get, Headers, NotFoundException, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RequirePermissions } from '../../platform/auth/auth.decorators.js';
import { acceptsEventStream } from '../../platform/http/event-stream.js';
import { ValidationProblem } from '../../platform/http/problem.js';
import { ValidParams, ValidQuery } from '../../platform/http/validated-params.js';
import { MAX_EVENTS_PAGE, RunEventsQueryDto } from '../dto/run-events-query.dto.js';
import { RunPathDto } from '../dto/run-path.dto.js';
import { RunStreams } from './run-streams.js';

/** `Last-Event-ID` as the id to resume after; absent: undefined. */
export function lastEventId(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  if (!/^\d{1,15}$/.test(header.trim())) {
    throw new ValidationProblem(
      [{ path: 'Last-Event-ID', message: 'must be an event id (a whole number)' }],
      'Last-Event-ID must be the id of an event of this run',
    );
  }
  return Number(header.trim());
}

@Controller('v1/runs')
export class RunEventsController {
  constructor(private readonly streams: RunStreams) {}

  /**
   * A run's event log, from any replica: `text/event-stream` (with `Accept`) from after
   * `Last-Event-ID` (or `?after=`) live to the run's last event; otherwise a page of JSON.
   */
  @RequirePermissions('runs:read')
  @Get(':run_id/events')
  async events(
    @ValidParams() { run_id: runId }: RunPathDto,
    @ValidQuery() query: RunEventsQueryDto,
    @Headers('last-event-id') lastEvent: string | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const after = lastEventId(lastEvent) ?? query.after ?? 0;
    if (!(await this.streams.exists(query.tenant_id, runId))) {
      throw new NotFoundException(`no run ${JSON.stringify(runId)} for this tenant`);
    }
    if (acceptsEventStream(request)) {
      await this.streams.stream(query.tenant_id, runId, after, response);
      return;
    }
    const page = await this.streams.page(
      query.tenant_id,
      runId,
      after,
      query.limit ?? MAX_EVENTS_PAGE,
    );
    response.status(200).json(page);
  }
}
