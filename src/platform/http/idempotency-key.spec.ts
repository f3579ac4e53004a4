import { describe, expect, it } from '@jest/globals';
import {
  MAX_IDEMPOTENCY_KEY,
  idempotencyHeaderValue,
  isIdempotencyKey,
  requestIdempotencyKey,
} from './idempotency-key.js';
import { ValidationProblem } from './problem.js';

describe('idempotency keys', () => {
  it('accepts 1 to 255 printable ASCII characters', () => {
    expect(isIdempotencyKey('run-1/3/call_abc')).toBe(true);
    expect(isIdempotencyKey('a b~!"')).toBe(true);
    expect(isIdempotencyKey('x'.repeat(MAX_IDEMPOTENCY_KEY))).toBe(true);
    expect(isIdempotencyKey('')).toBe(false);
    expect(isIdempotencyKey('x'.repeat(MAX_IDEMPOTENCY_KEY + 1))).toBe(false);
    expect(isIdempotencyKey('caf\u00e9')).toBe(false);
    expect(isIdempotencyKey('a\tb')).toBe(false);
    expect(isIdempotencyKey('a\u007fb')).toBe(false);
  });

  it('sends a fit key as is and any other as its stable digest', () => {
    expect(idempotencyHeaderValue('acme/msg-1')).toBe('acme/msg-1');
    const long = `run/${'x'.repeat(300)}`;
    expect(idempotencyHeaderValue(long)).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    expect(idempotencyHeaderValue(long)).toBe(idempotencyHeaderValue(long));
    expect(idempotencyHeaderValue('caf\u00e9/1')).not.toBe(idempotencyHeaderValue('cafe/1'));
  });
});

describe('requestIdempotencyKey', () => {
  // As Node has them: repeated values joined in `headers`, kept apart in `headersDistinct`.
  const request = (values?: string[]) => ({
    headers: values === undefined ? {} : { 'idempotency-key': values.join(', ') },
    headersDistinct: values === undefined ? {} : { 'idempotency-key': values },
  });
  const problem = (values: string[]) => {
    try {
      requestIdempotencyKey(request(values));
    } catch (error) {
      if (error instanceof ValidationProblem) {
        return { status: error.getStatus(), slug: error.slug, errors: error.errors };
      }
      throw error;
    }
    throw new Error('expected a 400');
  };

  it("passes on the client's key, and nothing without one", () => {
    expect(requestIdempotencyKey(request(['order-42/attempt']))).toBe('order-42/attempt');
    expect(requestIdempotencyKey(request())).toBeUndefined();
  });

  it('refuses an unfit key or two keys with a 400 validation problem', () => {
    for (const values of [[''], ['x'.repeat(MAX_IDEMPOTENCY_KEY + 1)], ['caf\u00e9']]) {
      expect(problem(values)).toEqual({
        status: 400,
        slug: 'validation',
        errors: [
          {
            path: 'Idempotency-Key',
            message: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
          },
        ],
      });
    }
    expect(problem(['a', 'b']).errors).toEqual([
      { path: 'Idempotency-Key', message: 'Idempotency-Key must be sent once' },
    ]);
  });
});
