import { ProblemException } from '../http/problem.js';
import { scrubSecrets } from '../logging/scrub-secrets.js';

/** How much of an upstream body an error detail may quote. */
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
 * Makes upstream text safe to show: the credential itself is removed wherever it appears (an
 * endpoint may echo it without a `Bearer` prefix), then URL and bearer credentials are scrubbed.
 * Redaction runs before truncation so a cut can never leave half a key behind.
 */
export function redact(text: string, apiKey?: string): string {
  const withoutKey = apiKey ? text.split(apiKey).join('***') : text;
  return scrubSecrets(withoutKey);
}

/** A short, single-line, redacted quote of an upstream body ('' when empty). */
export function quoteUpstream(body: string, apiKey?: string): string {
  const line = redact(body, apiKey).replace(/\s+/g, ' ').trim();
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
