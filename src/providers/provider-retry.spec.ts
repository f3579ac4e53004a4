import { describe, expect, it } from '@jest/globals';
import { isRetryableStatus, parseRetryAfter, retryDelay } from './provider-retry.js';

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('retry policy', () => {
  it('retries 429 and 5xx only', () => {
    expect([429, 500, 502, 503, 599].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 408, 422, 600].some(isRetryableStatus)).toBe(false);
  });

  it('backs off exponentially with jitter unless the server says how long', () => {
    expect(retryDelay(1)).toBeGreaterThanOrEqual(80);
    expect(retryDelay(1)).toBeLessThanOrEqual(120);
    expect(retryDelay(2)).toBeGreaterThanOrEqual(160);
    expect(retryDelay(2)).toBeLessThanOrEqual(240);
    expect(retryDelay(2, 0)).toBe(0);
  });
});
