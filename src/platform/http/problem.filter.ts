import { type ArgumentsHost, Catch, type ExceptionFilter, Logger, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { classifyError } from './classify-error.js';
import {
  PROBLEM_CONTENT_TYPE,
  type ProblemDetails,
  type ProblemMembers,
  STANDARD_MEMBERS,
  problemTitle,
  problemType,
} from './problem.js';
import { WireErrors } from './wire-errors.js';

/**
 * An error as the client will see it: the problem body, its extension members (sent in the
 * body, after the standard ones), and the headers that go with it.
 */
export interface DescribedProblem {
  body: ProblemDetails;
  members: ProblemMembers;
  headers: Record<string, string>;
}

/** The body with its extension members, as JSON text. */
export function problemJson({ body, members }: DescribedProblem): string {
  return JSON.stringify({ ...body, ...members });
}

const logger = new Logger('ProblemFilter');

/**
 * What any error means for the client: a 500 says nothing about internals and is logged with
 * the request id that the client also receives; a 401 carries its `WWW-Authenticate`
 * challenge, a refusal that passes with time its `Retry-After`.
 */
export function describeProblem(
  exception: unknown,
  req: Request & { id?: unknown },
): DescribedProblem {
  const requestId = typeof req.id === 'string' ? req.id : undefined;
  let classified = classifyError(exception);
  // A refusal with Retry-After (backend away, shutting down) is expected; the request log has it.
  if (!classified || (classified.status >= 500 && classified.retryAfterS === undefined)) {
    logger.error(
      { err: exception, request_id: requestId },
      `request failed: ${req.method} ${req.path}`,
    );
  }
  classified ??= {
    status: 500,
    detail: 'an unexpected error occurred; quote the request_id when reporting it',
  };
  const { status, detail, slug, errors, retryAfterS } = classified;
  const members = Object.fromEntries(
    Object.entries(classified.members ?? {}).filter(([name]) => !STANDARD_MEMBERS.has(name)),
  );
  const headers: Record<string, string> = {};
  if (retryAfterS !== undefined) headers['Retry-After'] = String(retryAfterS);
  if (status === 401) {
    const invalid = req.headers.authorization || req.headers['x-api-key'];
    headers['WWW-Authenticate'] = invalid
      ? 'Bearer realm="svc", error="invalid_token"'
      : 'Bearer realm="svc"';
  }
  const body: ProblemDetails = {
    type: problemType(status, slug),
    title: problemTitle(status),
    status,
    detail,
    instance: req.originalUrl?.split('?')[0],
    ...(requestId ? { request_id: requestId } : {}),
    ...(errors ? { errors } : {}),
  };
  return { body, members, headers };
}

/**
 * Every error, Nest's own included (unknown route, malformed JSON, body too large), leaves as an
 * `application/problem+json` body, or in the shape of the wire whose route it is (WireErrors).
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(@Optional() private readonly wires?: WireErrors) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const req = http.getRequest<Request>();
    const problem = describeProblem(exception, req);
    if (res.headersSent) return;
    const wire = this.wires?.writerFor(req);
    if (wire) {
      wire(problem, req, res);
      return;
    }
    res.set(problem.headers);
    res.status(problem.body.status).type(PROBLEM_CONTENT_TYPE).send(problemJson(problem));
  }
}
