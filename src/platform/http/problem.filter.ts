import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { classifyError } from './classify-error.js';
import { PROBLEM_CONTENT_TYPE, type ProblemDetails, problemTitle, problemType } from './problem.js';

/**
 * Every error, Nest's own included (unknown route, malformed JSON, body too large), leaves as an
 * `application/problem+json` body. A 500 says nothing about internals; it is logged with the
 * request id that the client also receives.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request & { id?: unknown }>();
    const res = http.getResponse<Response>();
    const requestId = typeof req.id === 'string' ? req.id : undefined;

    let classified = classifyError(exception);
    // A refusal with Retry-After (backend away, shutting down) is expected; the request log has it.
    if (!classified || (classified.status >= 500 && classified.retryAfterS === undefined)) {
      this.logger.error(
        { err: exception, request_id: requestId },
        `request failed: ${req.method} ${req.path}`,
      );
    }
    classified ??= {
      status: 500,
      detail: 'an unexpected error occurred; quote the request_id when reporting it',
    };

    const { status, detail, slug, errors, retryAfterS } = classified;
    const body: ProblemDetails = {
      type: problemType(status, slug),
      title: problemTitle(status),
      status,
      detail,
      instance: req.originalUrl?.split('?')[0],
      ...(requestId ? { request_id: requestId } : {}),
      ...(errors ? { errors } : {}),
    };
    if (res.headersSent) return;
    if (retryAfterS !== undefined) res.setHeader('Retry-After', retryAfterS);
    if (status === 401) {
      const invalid = req.headers.authorization || req.headers['x-api-key'];
      res.setHeader(
        'WWW-Authenticate',
        invalid ? 'Bearer realm="svc", error="invalid_token"' : 'Bearer realm="svc"',
      );
    }
    res.status(status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
  }
}
