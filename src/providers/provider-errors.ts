import { ProblemException } from '../platform/http/problem.js';
import { SecretScrubber } from '../platform/logging/scrub-secrets.js';

/** How much of an upstream body a log line may quote. */
const QUOTE_CHARS = 200;

/** 502: the model endpoint failed (bad status, unreachable, malformed answer). */
export function providerFailed(detail: string): ProblemException {
  return new ProblemException(502, detail, 'provider-failed');
}

/** 504: the model endpoint did not answer within SVC_PROVIDER_TIMEOUT_MS. */
export function providerTimeout(detail: string): ProblemException {
  return new ProblemException(504, detail, 'provider-timeout');
}

/**
 * A short, single-line quote of upstream text for an operator's log line ('' when empty), with
 * the credentials `scrubber` knows (in every spelling and any long enough piece) and URL and
 * bearer credentials removed. Upstream text never goes into anything a tenant can read (problem
 * details, run records, the studio, the audit trail): those get a classified reason only. The
 * scrub runs before the cut, so a cut can never leave a piece of a key it would have found.
 */
export function quoteUpstream(body: string, scrubber: SecretScrubber): string {
  const line = scrubber.scrub(body).replace(/\s+/g, ' ').trim();
  if (line === '') return '';
  return line.length > QUOTE_CHARS ? `${line.slice(0, QUOTE_CHARS)}…` : line;
}

interface ErrorLike {
  message: string;
  code?: unknown;
  cause?: unknown;
}

// Duck-typed: fetch's errors come from Node's own realm, where `instanceof Error` can fail.
function isErrorLike(value: unknown): value is ErrorLike {
  return (
    typeof value === 'object' && value !== null && typeof (value as ErrorLike).message === 'string'
  );
}

/** The most useful words of a fetch failure: `connect ECONNREFUSED 127.0.0.1:9`, not `fetch failed`. */
export function describeNetworkError(error: unknown): string {
  if (!isErrorLike(error)) return String(error);
  const cause = isErrorLike(error.cause) ? error.cause : error;
  const code = typeof cause.code === 'string' ? cause.code : undefined;
  return code && !cause.message.includes(code) ? `${code}: ${cause.message}` : cause.message;
}
