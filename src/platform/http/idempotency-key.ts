import { type ExecutionContext, createParamDecorator } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ValidationProblem } from './problem.js';

/** The request header that lets a receiver recognise a repeated call (IETF httpapi draft). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** The longest key sent or accepted (Stripe's bound; the draft sets none). */
export const MAX_IDEMPOTENCY_KEY = 255;

/** Printable ASCII: what every HTTP stack carries unchanged in a header value. */
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/** True for a key fit to send and accept as is: 1 to 255 printable ASCII characters. */
export function isIdempotencyKey(value: string): boolean {
  return value.length <= MAX_IDEMPOTENCY_KEY && PRINTABLE_ASCII.test(value);
}

/**
 * The header value of a key the gateway made (run, step and call ids; tenant ids). Ids may hold
 * any Unicode and a model's call id anything at all, so a key that is not fit as is becomes a
 * digest of itself: the same key always gives the same value, on every replica.
 */
export function idempotencyHeaderValue(key: string): string {
  if (isIdempotencyKey(key)) return key;
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('base64url')}`;
}

/** The `Idempotency-Key` header of an outgoing call, or none without a key. */
export function idempotencyHeaders(key: string | undefined): Record<string, string> {
  return key === undefined ? {} : { [IDEMPOTENCY_KEY_HEADER]: idempotencyHeaderValue(key) };
}

/**
 * The `Idempotency-Key` a client sent, or undefined without one. One header of 1 to 255
 * printable ASCII characters, else a 400: passed on as is, it must reach the endpoint unchanged.
 */
export function requestIdempotencyKey(
  request: Pick<IncomingMessage, 'headers' | 'headersDistinct'>,
): string | undefined {
  // `headers` is built for every request anyway; Node builds `headersDistinct`, every header
  // again as an array, only when it is read, so a request without a key never has it built.
  if (request.headers[IDEMPOTENCY_KEY_HEADER] === undefined) return undefined;
  const values = request.headersDistinct[IDEMPOTENCY_KEY_HEADER];
  if (values === undefined) return undefined;
  // Node joins repeated headers with ", ", which would make two keys look like one.
  if (values.length === 1 && isIdempotencyKey(values[0])) return values[0];
  const message =
    values.length === 1
      ? `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} printable ASCII characters`
      : 'Idempotency-Key must be sent once';
  throw new ValidationProblem([{ path: 'Idempotency-Key', message }], message);
}

/** The request's checked `Idempotency-Key` (see requestIdempotencyKey). */
export const IdempotencyKey = createParamDecorator(
  (_: unknown, context: ExecutionContext): string | undefined =>
    requestIdempotencyKey(context.switchToHttp().getRequest<IncomingMessage>()),
);
