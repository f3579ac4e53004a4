import { describe, expect, it } from '@jest/globals';
import { FailureBudget } from './failure-budget.js';

describe('FailureBudget', () => {
  const clock = () => {
    let now = 1_000_000;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  it('refuses an address once it spent its budget, until its window ends', () => {
    const time = clock();
    const budget = new FailureBudget({ limit: 3, windowMs: 60_000 }, time.now);
    for (let i = 0; i < 2; i++) budget.fail('192.0.2.1');
    expect(budget.retryAfter('192.0.2.1')).toBe(0);
    budget.fail('192.0.2.1');
    expect(budget.retryAfter('192.0.2.1')).toBe(60);
    expect(budget.retryAfter('192.0.2.2')).toBe(0); // other addresses are not affected
    time.advance(59_500);
    expect(budget.retryAfter('192.0.2.1')).toBe(1);
    time.advance(500);
    expect(budget.retryAfter('192.0.2.1')).toBe(0);
    budget.fail('192.0.2.1');
    expect(budget.retryAfter('192.0.2.1')).toBe(0); // a fresh window
  });

  it('is off with a limit of 0', () => {
    const budget = new FailureBudget({ limit: 0, windowMs: 60_000 });
    for (let i = 0; i < 10; i++) budget.fail('192.0.2.1');
    expect(budget.retryAfter('192.0.2.1')).toBe(0);
    expect(budget.size).toBe(0);
  });

  it('tracks a bounded number of addresses, forgetting the stalest first', () => {
    const time = clock();
    const budget = new FailureBudget({ limit: 2, windowMs: 60_000, maxAddresses: 100 }, time.now);
    budget.fail('blocked');
    budget.fail('blocked');
    for (let i = 0; i < 99; i++) budget.fail(`other-${i}`);
    expect(budget.size).toBe(100);
    budget.fail('blocked'); // its latest failure makes it the freshest
    budget.fail('newcomer');
    expect(budget.size).toBe(100);
    expect(budget.retryAfter('blocked')).toBeGreaterThan(0);
    for (let i = 0; i < 5000; i++) budget.fail(`flood-${i}`);
    expect(budget.size).toBe(100);
  });

  it('forgets expired windows as failures arrive', () => {
    const time = clock();
    const budget = new FailureBudget({ limit: 5, windowMs: 1000 }, time.now);
    for (let i = 0; i < 50; i++) budget.fail(`a-${i}`);
    time.advance(2000);
    for (let i = 0; i < 10; i++) budget.fail(`b-${i}`);
    expect(budget.size).toBeLessThan(60);
  });
});
