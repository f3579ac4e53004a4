import { describe, expect, it } from '@jest/globals';
import { budgetLimits, budgetStates, exhaustedBudget } from './budget-state.js';

const own = (budget: { daily_tokens?: number | null; monthly_tokens?: number | null }) => ({
  ...budget,
  updated_at: '2026-11-24T10:00:00.000Z',
  updated_by: 'root',
});

describe('token budgets', () => {
  it("takes the tenant's own limits where it set them (null: none), the defaults elsewhere", () => {
    const defaults = { dailyTokens: 100, monthlyTokens: 1000 };
    expect(budgetLimits(null, defaults)).toEqual({
      daily: { limit: 100, source: 'default' },
      monthly: { limit: 1000, source: 'default' },
    });
    expect(budgetLimits(own({ daily_tokens: null }), defaults)).toEqual({
      daily: { limit: null, source: 'tenant' },
      monthly: { limit: 1000, source: 'default' },
    });
    expect(budgetLimits(own({ monthly_tokens: 0 }), {})).toEqual({
      daily: { limit: null, source: 'default' },
      monthly: { limit: 0, source: 'tenant' },
    });
  });

  it('says what is used and left of each, and when each resets (UTC)', () => {
    const limits = budgetLimits(own({ daily_tokens: 50 }), { monthlyTokens: 1000 });
    const states = budgetStates(limits, { today: 60, since: 400 }, '2026-11-30');
    expect(states).toEqual({
      daily: {
        budget: 'daily',
        limit: 50,
        source: 'tenant',
        used: 60,
        remaining: 0,
        resets_at: '2026-12-01T00:00:00.000Z',
      },
      monthly: {
        budget: 'monthly',
        limit: 1000,
        source: 'default',
        used: 400,
        remaining: 600,
        resets_at: '2026-12-01T00:00:00.000Z',
      },
    });
  });

  it('is exhausted once the spend reaches a limit, naming the budget that lasts longer', () => {
    const at = (today: number, since: number, daily: number | null, monthly: number | null) =>
      exhaustedBudget(
        budgetStates(
          budgetLimits(own({ daily_tokens: daily, monthly_tokens: monthly }), {}),
          { today, since },
          '2026-11-24',
        ),
      )?.budget ?? null;
    expect(at(99, 99, 100, null)).toBeNull();
    expect(at(100, 100, 100, null)).toBe('daily');
    expect(at(10, 500, 100, 500)).toBe('monthly');
    // Both spent: no run starts before the month resets.
    expect(at(100, 500, 100, 500)).toBe('monthly');
    expect(at(0, 0, 0, null)).toBe('daily');
    expect(at(10_000, 10_000, null, null)).toBeNull();
  });
});
