import { HttpException } from '@nestjs/common';
import { InvalidStateKeyError } from '../state/state-key.limits.js';
import { LeaseLostError, StateConflictError, StateUnavailableError } from '../state/state-store.js';
import { STATE_RETRY_AFTER_S } from '../state/state-unavailable.js';
import {
  type ProblemDetails,
  ProblemException,
  type ProblemMembers,
  RetryLaterProblem,
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

export interface ClassifiedError {
  status: number;
  detail: string;
  slug?: string;
  errors?: ProblemDetails['errors'];
  /** A refusal that passes with time: seconds for `Retry-After`. */
  retryAfterS?: number;
  /** Extension members of the problem body. */
  members?: ProblemMembers;
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

/**
 * What an error means to a caller: status, detail, problem slug and field errors. Null for an
 * error with no meaning outside the process (a bug): that is a 500 whose details stay in the log.
 */
export function classifyError(exception: unknown): ClassifiedError | null {
  if (exception instanceof ProblemException) {
    return {
      status: exception.getStatus(),
      detail: httpDetail(exception),
      slug: exception.slug,
      errors: exception.errors,
      ...(exception instanceof RetryLaterProblem ? { retryAfterS: exception.retryAfterS } : {}),
      ...(exception.members ? { members: exception.members } : {}),
    };
  }
  if (exception instanceof HttpException) {
    // A problem a middleware passed to next() arrives wrapped by Nest's Express adapter.
    if (exception.cause instanceof ProblemException) return classifyError(exception.cause);
    const parser = BODY_PARSER_DETAILS[causeType(exception) ?? ''];
    if (parser) return { status: exception.getStatus(), ...parser };
    return { status: exception.getStatus(), detail: httpDetail(exception) };
  }
  if (exception instanceof StateUnavailableError) {
    return {
      status: 503,
      detail: exception.message,
      slug: 'state-unavailable',
      retryAfterS: STATE_RETRY_AFTER_S,
    };
  }
  if (exception instanceof StateConflictError) return { status: 409, detail: exception.message };
  if (exception instanceof LeaseLostError) {
    return { status: 409, detail: exception.message, slug: 'lease-lost' };
  }
  if (exception instanceof InvalidStateKeyError) return { status: 400, detail: exception.message };
  return null;
}
