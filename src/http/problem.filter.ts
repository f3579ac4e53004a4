import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  Logger,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { InvalidStateKeyError } from '../state/state-key.limits.js';
import { LeaseLostError, StateConflictError, StateUnavailableError } from '../state/state-store.js';
import {
  PROBLEM_CONTENT_TYPE,
  type ProblemDetails,
  ProblemException,
  problemTitle,
  problemType,
} from './problem.js';

/** body-parser error types (Nest maps them to HttpExceptions and keeps the original as cause). */
const BODY_PARSER_DETAILS: Record<string, { slug: string; detail: string }> = {
  'entity.parse.failed': { slug: 'malformed-json', detail: 'the request body is not valid JSON' },
  'entity.too.large': {
    slug: 'payload-too-large',
    detail: 'the request body is larger than the limit',
  },
  'encoding.unsupported': {
    slug: 'unsupported-media-type',
    detail: 'unsupported content encoding',
  },
  'charset.unsupported': { slug: 'unsupported-media-type', detail: 'unsupported charset' },
};

interface Classified {
  status: number;
  detail: string;
  slug?: string;
  errors?: ProblemDetails['errors'];
}

function causeType(exception: HttpException): string | undefined {
  const cause = exception.cause as { type?: unknown } | undefined;
  return typeof cause?.type === 'string' ? cause.type : undefined;
}

function httpDetail(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

function classify(exception: unknown): Classified | null {
  if (exception instanceof ProblemException) {
    return {
      status: exception.getStatus(),
      detail: httpDetail(exception),
      slug: exception.slug,
      errors: exception.errors,
    };
  }
  if (exception instanceof HttpException) {
    const parser = BODY_PARSER_DETAILS[causeType(exception) ?? ''];
    if (parser) return { status: exception.getStatus(), ...parser };
    return { status: exception.getStatus(), detail: httpDetail(exception) };
  }
  if (exception instanceof StateUnavailableError) return { status: 503, detail: exception.message };
  if (exception instanceof StateConflictError) return { status: 409, detail: exception.message };
  if (exception instanceof LeaseLostError) {
    return { status: 409, detail: exception.message, slug: 'lease-lost' };
  }
  if (exception instanceof InvalidStateKeyError) return { status: 400, detail: exception.message };
  return null;
}

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

    let classified = classify(exception);
    if (!classified || classified.status >= 500) {
      this.logger.error(
        { err: exception, request_id: requestId },
        `request failed: ${req.method} ${req.path}`,
      );
    }
    classified ??= {
      status: 500,
      detail: 'an unexpected error occurred; quote the request_id when reporting it',
    };

    const { status, detail, slug, errors } = classified;
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
