import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AuditSink } from '../../platform/audit/audit-sink.js';
import type { BudgetsConfig, GatewayConfig } from '../../platform/config/gateway-config.js';
import { ProblemException } from '../../platform/http/problem.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import { monthStart, utcDay } from '../usage-days.js';
import { UsageLedger } from '../usage-ledger.store.js';
import { BudgetExhaustedProblem } from './budget-exhausted.problem.js';
import { BudgetSettings, type TenantBudget } from './budget-settings.store.js';
import {
  type BudgetLimits,
  type BudgetState,
  budgetLimits,
  budgetStates,
  exhaustedBudget,
} from './budget-state.js';

/**
 * How long a replica uses a tenant's budget settings before reading them again: a change made
 * on another replica applies here within this time (on the replica that made it, at once).
 */
export const BUDGET_SETTINGS_TTL_MS = 5_000;

/** Tenants whose settings one replica keeps at a time (the oldest read goes first). */
const MAX_CACHED_TENANTS = 10_000;

/** GET/PUT /v1/budgets/{tenant}: the tenant's budgets and where it stands with each. */
export interface BudgetStatus {
  tenant_id: string;
  daily: BudgetState;
  monthly: BudgetState;
  /** When and by whom the tenant's own budget was set; null while the defaults apply. */
  updated_at: string | null;
  updated_by: string | null;
}

/** A change of a tenant's own budgets: a number of tokens, null (no limit), absent (default). */
export interface BudgetChange {
  daily_tokens?: number | null;
  monthly_tokens?: number | null;
}

/**
 * Per-tenant token budgets, daily and monthly (UTC), over the tokens the ledger counts: the
 * gateway's defaults (SVC_TOKEN_BUDGET_DAILY / _MONTHLY) unless the tenant has its own. A new
 * run of a tenant whose budget is spent is refused before it starts; runs in flight go on.
 * The check costs one indexed read of the ledger when a limit applies, and none when none
 * does (the settings are kept BUDGET_SETTINGS_TTL_MS).
 */
@Injectable()
export class TokenBudgets {
  private readonly defaults: BudgetsConfig;
  private readonly cache = new Map<string, { own: TenantBudget | null; until: number }>();

  constructor(
    private readonly settings: BudgetSettings,
    private readonly ledger: UsageLedger,
    private readonly audit: AuditSink,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.defaults = config.get('budgets', { infer: true });
  }

  /** Throws 429 `budget-exhausted` when the tenant may start no run now. */
  async admit(tenantId: string): Promise<void> {
    const limits = budgetLimits(await this.own(tenantId), this.defaults);
    if (limits.daily.limit === null && limits.monthly.limit === null) return;
    const now = new Date();
    const spent = exhaustedBudget(await this.states(tenantId, limits, now));
    if (spent && spent.limit !== null) {
      throw new BudgetExhaustedProblem(tenantId, { ...spent, limit: spent.limit }, now);
    }
  }

  async status(tenantId: string): Promise<BudgetStatus> {
    const own = await this.settings.get(tenantId);
    this.remember(tenantId, own);
    const states = await this.states(tenantId, budgetLimits(own, this.defaults), new Date());
    return {
      tenant_id: tenantId,
      ...states,
      updated_at: own?.updated_at ?? null,
      updated_by: own?.updated_by ?? null,
    };
  }

  /** Sets the tenant's own budgets (replacing what it had); audited. */
  async set(tenantId: string, change: BudgetChange, actor?: string): Promise<BudgetStatus> {
    const own: TenantBudget = {
      ...(change.daily_tokens !== undefined ? { daily_tokens: change.daily_tokens } : {}),
      ...(change.monthly_tokens !== undefined ? { monthly_tokens: change.monthly_tokens } : {}),
      updated_at: new Date().toISOString(),
      updated_by: actor ?? null,
    };
    await this.settings.put(tenantId, own);
    this.remember(tenantId, own);
    const details: Record<string, JsonValue> = {};
    if (change.daily_tokens !== undefined) details.daily_tokens = change.daily_tokens;
    if (change.monthly_tokens !== undefined) details.monthly_tokens = change.monthly_tokens;
    this.audit.record({ kind: 'budget.updated', tenantId, actor, details });
    return this.status(tenantId);
  }

  /** Removes the tenant's own budgets: the defaults apply again (404 when it had none). */
  async clear(tenantId: string, actor?: string): Promise<void> {
    const removed = await this.settings.delete(tenantId);
    this.remember(tenantId, null);
    if (!removed) {
      throw new ProblemException(
        404,
        `tenant ${JSON.stringify(tenantId)} has no budget of its own (the defaults apply)`,
        'budget-not-found',
      );
    }
    this.audit.record({ kind: 'budget.deleted', tenantId, actor, details: {} });
  }

  private async states(tenantId: string, limits: BudgetLimits, now: Date) {
    const today = utcDay(now);
    const spent = await this.ledger.spent(tenantId, monthStart(today), today);
    return budgetStates(limits, spent, today);
  }

  /** The tenant's own settings, as read at most BUDGET_SETTINGS_TTL_MS ago. */
  private async own(tenantId: string): Promise<TenantBudget | null> {
    const cached = this.cache.get(tenantId);
    if (cached && cached.until > Date.now()) return cached.own;
    const own = await this.settings.get(tenantId);
    this.remember(tenantId, own);
    return own;
  }

  private remember(tenantId: string, own: TenantBudget | null): void {
    this.cache.delete(tenantId);
    if (this.cache.size >= MAX_CACHED_TENANTS) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(tenantId, { own, until: Date.now() + BUDGET_SETTINGS_TTL_MS });
  }
}
