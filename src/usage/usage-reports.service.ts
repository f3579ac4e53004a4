import { Injectable } from '@nestjs/common';
import { ValidationProblem } from '../platform/http/problem.js';
import { daysCovered, monthStart, utcDay } from './usage-days.js';
import { UsageLedger, type UsageSums } from './usage-ledger.store.js';

/** The longest range one report covers: a year (a leap year's days included). */
export const MAX_REPORT_DAYS = 366;

/** Models, and agents, one report lists (the largest first); the totals count them all. */
export const MAX_REPORT_GROUPS = 200;

/** `GET /v1/usage`: a tenant's token usage over a range of UTC days. */
export interface UsageReport {
  tenant_id: string;
  from: string;
  to: string;
  totals: UsageSums;
  /** Days with usage, in order. */
  by_day: Array<{ day: string } & UsageSums>;
  /** Largest first. */
  by_model: Array<{ model: string } & UsageSums>;
  by_agent: Array<{ agent: string } & UsageSums>;
  /** True when `by_model` or `by_agent` lists only the largest MAX_REPORT_GROUPS. */
  truncated: boolean;
}

const NOTHING: UsageSums = {
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  calls: 0,
  runs: 0,
};

function add(total: UsageSums, more: UsageSums): UsageSums {
  return {
    prompt_tokens: total.prompt_tokens + more.prompt_tokens,
    completion_tokens: total.completion_tokens + more.completion_tokens,
    total_tokens: total.total_tokens + more.total_tokens,
    calls: total.calls + more.calls,
    runs: total.runs + more.runs,
  };
}

/**
 * Tenants' usage reports from the ledger: three grouped reads of one tenant's range of days
 * (by day, model and agent); the totals are the days' sum.
 */
@Injectable()
export class UsageReports {
  constructor(private readonly ledger: UsageLedger) {}

  /** `from` defaults to the first day of `to`'s month, `to` to today (UTC). */
  async report(tenantId: string, from?: string, to?: string): Promise<UsageReport> {
    const last = to ?? utcDay(new Date());
    const first = from ?? monthStart(last);
    const days = daysCovered(first, last);
    if (days < 1) {
      throw new ValidationProblem(
        [{ path: 'from', message: `from (${first}) is after to (${last})` }],
        `from (${first}) is after to (${last})`,
      );
    }
    if (days > MAX_REPORT_DAYS) {
      throw new ValidationProblem(
        [{ path: 'from', message: `a report covers at most ${MAX_REPORT_DAYS} days` }],
        `from ${first} to ${last} is ${days} days; a report covers at most ${MAX_REPORT_DAYS}`,
      );
    }
    const [byDay, byModel, byAgent] = await Promise.all([
      this.ledger.sums(tenantId, first, last, 'day', MAX_REPORT_DAYS),
      this.ledger.sums(tenantId, first, last, 'model', MAX_REPORT_GROUPS + 1),
      this.ledger.sums(tenantId, first, last, 'agent', MAX_REPORT_GROUPS + 1),
    ]);
    const truncated = byModel.length > MAX_REPORT_GROUPS || byAgent.length > MAX_REPORT_GROUPS;
    return {
      tenant_id: tenantId,
      from: first,
      to: last,
      totals: byDay.reduce((total, { name: _day, ...sums }) => add(total, sums), NOTHING),
      by_day: byDay.map(({ name, ...sums }) => ({ day: name, ...sums })),
      by_model: byModel
        .slice(0, MAX_REPORT_GROUPS)
        .map(({ name, ...sums }) => ({ model: name, ...sums })),
      by_agent: byAgent
        .slice(0, MAX_REPORT_GROUPS)
        .map(({ name, ...sums }) => ({ agent: name, ...sums })),
      truncated,
    };
  }
}
