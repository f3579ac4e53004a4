import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { classifyError } from './classify-error.js';
import { PROBLEM_CONTENT_TYPE, type ProblemDetails, problemTitle, problemType } from './problem.js';

/** An error as the client will see it: the problem body and the headers that go with it. */
export interface DescribedProblem {
  body: ProblemDetails;
  headers: Record<string, string>;
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
  return { body, headers };
}

/**
 * Every error, Nest's own included (unknown route, malformed JSON, body too large), leaves as an
 * `application/problem+json` body.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const { body, headers } = describeProblem(exception, http.getRequest());
    if (res.headersSent) return;
    res.set(headers);
    res.status(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
  }
}
