import { RetryLaterProblem } from '../../platform/http/problem.js';
import type { BudgetState } from './budget-state.js';

/**
 * 429 `budget-exhausted`: the tenant's daily or monthly token budget is spent, so no new run
 * starts until it resets. The body names the budget (`budget`, `limit`, `used`, `resets_at`);
 * `Retry-After` is the time until the reset.
 */
export class BudgetExhaustedProblem extends RetryLaterProblem {
  constructor(
    readonly tenantId: string,
    readonly state: BudgetState & { limit: number },
    now: Date,
  ) {
    const untilReset = Date.parse(state.resets_at) - now.getTime();
    super(
      429,
      `tenant ${JSON.stringify(tenantId)} has spent its ${state.budget} token budget ` +
        `(${state.used} of ${state.limit} tokens); new runs start again at ${state.resets_at}`,
      'budget-exhausted',
      Math.max(1, Math.ceil(untilReset / 1000)),
      {
        budget: state.budget,
        limit: state.limit,
        used: state.used,
        resets_at: state.resets_at,
      },
    );
  }
}
