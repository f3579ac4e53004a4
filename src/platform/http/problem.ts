import { HttpException } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import type { JsonValue } from '../state/state-store.js';

/** One field-level problem of a validation failure. */
export interface FieldError {
  /** Where in the input: `tenant_id`, `steps[2].depends_on`, `arguments.expression`. */
  path: string;
  message: string;
}

/** RFC 9457 problem details, the body of every error response (CONTRACT section 3). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  request_id?: string;
  errors?: FieldError[];
}

/**
 * Extension members (RFC 9457 section 3.2): further facts a client acts on, beside the standard
 * fields (which they never replace), e.g. the budget a 429 `budget-exhausted` names.
 */
export type ProblemMembers = { [member: string]: JsonValue };

/** The standard members, which an extension member never replaces. */
export const STANDARD_MEMBERS: ReadonlySet<string> = new Set([
  'type',
  'title',
  'status',
  'detail',
  'instance',
  'request_id',
  'errors',
]);

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** How many field errors one 400 lists, however many the input has. */
export const MAX_VALIDATION_ERRORS = 20;

const SLUGS: Record<number, string> = {
  400: 'bad-request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  408: 'request-timeout',
  409: 'conflict',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  417: 'expectation-failed',
  422: 'unprocessable',
  429: 'rate-limited',
  431: 'header-fields-too-large',
  500: 'internal',
  502: 'bad-gateway',
  503: 'unavailable',
  504: 'gateway-timeout',
};

/** `urn:svc:problem:<slug>`; the slug defaults to one per status code. */
export function problemType(status: number, slug?: string): string {
  return `urn:svc:problem:${slug ?? SLUGS[status] ?? `http-${status}`}`;
}

export function problemTitle(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

/**
 * An HttpException that carries the problem's own type slug and, for validation failures,
 * field errors. Throw it from services where a plain Nest exception says too little.
 */
export class ProblemException extends HttpException {
  constructor(
    status: number,
    detail: string,
    readonly slug?: string,
    readonly errors?: FieldError[],
    /** Extension members of the problem body. */
    readonly members?: ProblemMembers,
  ) {
    super(detail, status);
  }
}

/** A refusal that passes with time (429, 503): the problem filter adds `Retry-After`. */
export class RetryLaterProblem extends ProblemException {
  constructor(
    status: number,
    detail: string,
    slug: string,
    readonly retryAfterS: number,
    members?: ProblemMembers,
  ) {
    super(status, detail, slug, undefined, members);
  }
}

/** 400 with the list of invalid fields. */
export class ValidationProblem extends ProblemException {
  constructor(
    errors: FieldError[],
    detail = 'the request has invalid fields',
    /** How many field errors there were, listed or not. */
    readonly total = errors.length,
  ) {
    super(400, detail, 'validation', errors);
  }

  /**
   * The first of `total` field errors (at most MAX_VALIDATION_ERRORS are kept): the detail
   * quotes the first three messages and says how many errors the list leaves out.
   */
  static listing(kept: FieldError[], total = kept.length): ValidationProblem {
    const shown = kept.slice(0, MAX_VALIDATION_ERRORS);
    const summary = shown
      .slice(0, 3)
      .map((e) => e.message)
      .join('; ');
    const more = total > shown.length ? ` (${total - shown.length} more errors not listed)` : '';
    return new ValidationProblem(
      shown,
      `${summary || 'the request has invalid fields'}${more}`,
      Math.max(total, shown.length),
    );
  }
}
