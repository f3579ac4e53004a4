import { describe, expect, it, jest } from '@jest/globals';
import type { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { RetryLaterProblem } from '../platform/http/problem.js';
import { SchemaCompileBudget } from './schema-compile-budget.js';

const budgetOf = (compileMsPerMin: number) =>
  new SchemaCompileBudget({
    get: () => ({ compileMsPerMin }),
  } as unknown as ConfigService<GatewayConfig, true>);

describe('SchemaCompileBudget', () => {
  it('admits compilations until a tenant has spent its minute, then refuses with Retry-After', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const acme = budgetOf(100).account('acme');
      acme.admit();
      acme.charge(60);
      acme.admit();
      acme.charge(60); // one compilation may overshoot: it is measured when it ends
      jest.advanceTimersByTime(15_000);
      const refusal = (() => {
        try {
          acme.admit();
        } catch (error) {
          return error;
        }
      })();
      expect(refusal).toBeInstanceOf(RetryLaterProblem);
      expect(refusal).toMatchObject({ retryAfterS: 45, slug: 'schema-compile-budget' });
      expect((refusal as RetryLaterProblem).getStatus()).toBe(429);

      // Another tenant is not affected, and the next minute starts afresh.
      expect(() => budgetOf(100).account('beta').admit()).not.toThrow();
      jest.advanceTimersByTime(45_000);
      expect(() => acme.admit()).not.toThrow();
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps one budget per tenant across accounts, and none at 0', () => {
    const budget = budgetOf(10);
    budget.account('acme').charge(10);
    expect(() => budget.account('acme').admit()).toThrow(RetryLaterProblem);
    expect(() => budget.account('beta').admit()).not.toThrow();
    const off = budgetOf(0).account('acme');
    off.charge(1_000_000);
    expect(() => off.admit()).not.toThrow();
  });
});
