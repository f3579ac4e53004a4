import { Injectable } from '@nestjs/common';
import { BUDGETS_SCOPE } from '../../platform/state/state-scopes.js';
import { type JsonValue, type StateKey, StateStore } from '../../platform/state/state-store.js';

/**
 * A tenant's own token budgets, as PUT /v1/budgets/{tenant} set them. Each is a number of tokens,
 * `null` for no limit, or absent for the gateway's default (SVC_TOKEN_BUDGET_*).
 */
export interface TenantBudget {
  daily_tokens?: number | null;
  monthly_tokens?: number | null;
  updated_at: string;
  /** The key id that set it (null with auth off). */
  updated_by: string | null;
}

const keyOf = (tenantId: string): StateKey => ({
  tenantId,
  sessionId: BUDGETS_SCOPE,
  key: 'tokens',
});

/** Tenants' own budgets in the state backend: one entry per tenant, shared by every replica. */
@Injectable()
export class BudgetSettings {
  constructor(private readonly state: StateStore) {}

  async get(tenantId: string): Promise<TenantBudget | null> {
    const entry = await this.state.get(keyOf(tenantId));
    return entry ? (entry.value as unknown as TenantBudget) : null;
  }

  async put(tenantId: string, budget: TenantBudget): Promise<void> {
    await this.state.put(keyOf(tenantId), budget as unknown as JsonValue);
  }

  /** False when the tenant had no budget of its own. */
  delete(tenantId: string): Promise<boolean> {
    return this.state.delete(keyOf(tenantId));
  }
}
