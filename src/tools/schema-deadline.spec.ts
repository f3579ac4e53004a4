import { describe, expect, it } from '@jest/globals';
import { DeadlineExceeded, withDeadline } from './schema-deadline.js';

describe('withDeadline', () => {
  it('returns what the work returns, and lets its errors through', () => {
    expect(withDeadline(1000, () => 42)).toBe(42);
    expect(() =>
      withDeadline(1000, () => {
        throw new RangeError('deep');
      }),
    ).toThrow(RangeError);
  });

  it('stops a loop and a backtracking regular expression, and the process carries on', () => {
    expect(() =>
      withDeadline(50, () => {
        for (;;);
      }),
    ).toThrow(DeadlineExceeded);
    expect(() => withDeadline(50, () => /^(a+)+$/.test(`${'a'.repeat(40)}!`))).toThrow(
      DeadlineExceeded,
    );
    expect(withDeadline(1000, () => 'still working')).toBe('still working');
  });
});
