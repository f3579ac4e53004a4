import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { Request, Response } from 'express';
import { asRequest } from './run-lineage.js';

/**
 * Places every request in its run lineage: a call the gateway itself made for a run (one of its
 * HTTP tool calls pointed back at the gateway) handles its request inside that run, so whatever
 * it reaches (POST /v1/agent/run, run_agent over REST or MCP, the chat webhook) cannot start a
 * run. With auth off such a call is otherwise a person with every permission.
 */
@Injectable()
export class RunLineageMiddleware implements NestMiddleware {
  use(req: Request, _res: Response, next: () => void): void {
    asRequest(req.headers['user-agent'], next);
  }
}
