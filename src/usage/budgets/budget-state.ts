import type { BudgetsConfig } from '../../platform/config/gateway-config.js';
import type { RecentSpend } from '../usage-ledger.store.js';
import { nextDayStart, nextMonthStart } from '../usage-days.js';
import type { TenantBudget } from './budget-settings.store.js';

export type BudgetName = 'daily' | 'monthly';

/** A budget's limit and where it comes from: the tenant's own, or the gateway's default. */
export interface BudgetLimit {
  /** Tokens (prompt + completion) per period; null: no limit. */
  limit: number | null;
  source: 'tenant' | 'default';
}

export type BudgetLimits = Record<BudgetName, BudgetLimit>;

/** Where a tenant stands with one budget. */
export interface BudgetState extends BudgetLimit {
  budget: BudgetName;
  /** Tokens spent in the current period (UTC day, UTC calendar month). */
  used: number;
  /** What is left of the limit (never below 0); null without a limit. */
  remaining: number | null;
  /** When the period ends and `used` starts again from 0. */
  resets_at: string;
}

function limitOf(own: number | null | undefined, fallback: number | undefined): BudgetLimit {
  if (own !== undefined) return { limit: own, source: 'tenant' };
  return { limit: fallback ?? null, source: 'default' };
}

/** A tenant's limits: its own where it set them, the defaults elsewhere. */
export function budgetLimits(own: TenantBudget | null, defaults: BudgetsConfig): BudgetLimits {
  return {
    daily: limitOf(own?.daily_tokens, defaults.dailyTokens),
    monthly: limitOf(own?.monthly_tokens, defaults.monthlyTokens),
  };
}

/** Both budgets of a tenant on `today` (UTC), from what it spent today and this month. */
export function budgetStates(limits: BudgetLimits, spent: RecentSpend, today: string) {
  const state = (budget: BudgetName, used: number, resets: Date): BudgetState => {
    const { limit } = limits[budget];
    return {
      budget,
      ...limits[budget],
      used,
      remaining: limit === null ? null : Math.max(0, limit - used),
      resets_at: resets.toISOString(),
    };
  };
  return {
    daily: state('daily', spent.today, nextDayStart(today)),
    monthly: state('monthly', spent.since, nextMonthStart(today)),
  };
}

/**
 * The budget that stops new runs, if one is spent (used reached its limit): of two, the one
 * that resets later, since no run starts before both allow it.
 */
export function exhaustedBudget(states: Record<BudgetName, BudgetState>): BudgetState | null {
  const spent = [states.daily, states.monthly].filter(
    (state) => state.limit !== null && state.used >= state.limit,
  );
  if (spent.length === 0) return null;
  return spent.reduce((later, state) => (state.resets_at > later.resets_at ? state : later));
}
