import { Module } from '@nestjs/common';
import { StateModule } from '../platform/state/state.module.js';
import { BudgetSettings } from './budgets/budget-settings.store.js';
import { BudgetsController } from './budgets/budgets.controller.js';
import { TokenBudgets } from './budgets/token-budgets.service.js';
import { UsageController } from './usage.controller.js';
import { UsageLedger } from './usage-ledger.store.js';
import { UsageReports } from './usage-reports.service.js';

/**
 * Token usage and budgets (issue 17): the ledger every model call of a run adds to, the
 * tenants' reports (`GET /v1/usage`), and their budgets (`/v1/budgets/{tenant}`), which the
 * runner checks before a new run starts.
 */
@Module({
  imports: [StateModule],
  controllers: [UsageController, BudgetsController],
  providers: [UsageLedger, UsageReports, BudgetSettings, TokenBudgets],
  exports: [UsageLedger, TokenBudgets],
})
export class UsageModule {}
