import { describe, expect, it } from '@jest/globals';
import { MAX_BACKOFF_MS, MAX_RETRY_AFTER_MS, deliveryDelayMs } from './delivery-backoff.js';

describe('deliveryDelayMs', () => {
  it('doubles per attempt around the base, within ±25% jitter', () => {
    const low = () => 0;
    const high = () => 0.999999;
    expect(deliveryDelayMs(1, 1000, undefined, low)).toBe(750);
    expect(deliveryDelayMs(1, 1000, undefined, high)).toBe(1250);
    expect(deliveryDelayMs(2, 1000, undefined, () => 0.5)).toBe(2000);
    expect(deliveryDelayMs(3, 1000, undefined, () => 0.5)).toBe(4000);
    for (let attempt = 1; attempt <= 6; attempt++) {
      const delay = deliveryDelayMs(attempt, 1000);
      expect(delay).toBeGreaterThanOrEqual(0.75 * 1000 * 2 ** (attempt - 1));
      expect(delay).toBeLessThanOrEqual(1.25 * 1000 * 2 ** (attempt - 1));
    }
  });

  it('caps the backoff', () => {
    expect(deliveryDelayMs(40, 1000, undefined, () => 0.5)).toBe(MAX_BACKOFF_MS);
  });

  it('honours Retry-After exactly, within bounds', () => {
    expect(deliveryDelayMs(1, 1000, 30_000)).toBe(30_000);
    expect(deliveryDelayMs(5, 1000, 0)).toBe(0);
    expect(deliveryDelayMs(1, 1000, 10 * MAX_RETRY_AFTER_MS)).toBe(MAX_RETRY_AFTER_MS);
  });
});
