import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { DeploymentMark, LINEAGE_HEADER } from '../../platform/state/deployment-mark.js';
import { asRequest } from './run-lineage.js';

/**
 * Places every request in its run lineage: a call this deployment itself made for a run (one of
 * its HTTP tool calls pointed back at the gateway, on any of its replicas) handles its request
 * inside that run, so whatever it reaches (POST /v1/agent/run, run_agent over REST or MCP, the
 * chat webhook, A2A) cannot start a run. With auth off such a call is otherwise a person with
 * every permission. Another gateway deployment calling this one's agents is not such a call.
 */
@Injectable()
export class RunLineageMiddleware implements NestMiddleware {
  constructor(private readonly mark: DeploymentMark) {}

  use(req: Request, _res: Response, next: NextFunction): void {
    const header = req.headers[LINEAGE_HEADER];
    if (header === undefined) {
      next();
      return;
    }
    this.mark.isOwn(header).then(
      (own) => asRequest(own, next),
      (error: unknown) => next(error),
    );
  }
}
