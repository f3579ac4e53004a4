import { Controller, Delete, ForbiddenException, Get, HttpCode, Put } from '@nestjs/common';
import { CurrentPrincipal, RequirePermissions } from '../../platform/auth/auth.decorators.js';
import { assertTenantAllowed } from '../../platform/auth/auth.guard.js';
import type { Principal } from '../../platform/auth/principal.js';
import { ValidationProblem } from '../../platform/http/problem.js';
import { ValidBody, ValidParams } from '../../platform/http/validated-params.js';
import { BudgetDto, BudgetPathDto } from './dto/budget.dto.js';
import { type BudgetStatus, TokenBudgets } from './token-budgets.service.js';

/**
 * A budget caps a tenant, so only a key bound to no tenant may set or remove one: a tenant's
 * own key (even an admin's) could otherwise lift its cap.
 */
function assertUnbound(principal: Principal): void {
  if (principal.tenantId !== undefined) {
    throw new ForbiddenException(
      "a tenant's budget is set by the gateway's operator: use a key not bound to a tenant",
    );
  }
}

/**
 * `/v1/budgets/{tenant_id}`: a tenant's token budgets, daily and monthly. GET shows them with
 * what is spent (a tenant-bound key: its own tenant only); PUT sets the tenant's own, DELETE
 * returns it to the gateway's defaults (SVC_TOKEN_BUDGET_*).
 */
@Controller('v1/budgets')
export class BudgetsController {
  constructor(private readonly budgets: TokenBudgets) {}

  @RequirePermissions('usage:read')
  @Get(':tenant_id')
  status(
    @ValidParams() { tenant_id }: BudgetPathDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<BudgetStatus> {
    // The tenant is in the path, which the guard's tenant check does not read.
    assertTenantAllowed(principal, [tenant_id]);
    return this.budgets.status(tenant_id);
  }

  @RequirePermissions('budgets:write')
  @Put(':tenant_id')
  set(
    @ValidParams() { tenant_id }: BudgetPathDto,
    @ValidBody() body: BudgetDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<BudgetStatus> {
    assertUnbound(principal);
    if (body.daily_tokens === undefined && body.monthly_tokens === undefined) {
      throw new ValidationProblem(
        [{ path: 'daily_tokens', message: 'give daily_tokens or monthly_tokens (or both)' }],
        'give daily_tokens or monthly_tokens (null: no limit); DELETE returns the tenant to the defaults',
      );
    }
    return this.budgets.set(tenant_id, body, principal.keyId);
  }

  @RequirePermissions('budgets:write')
  @Delete(':tenant_id')
  @HttpCode(204)
  async clear(
    @ValidParams() { tenant_id }: BudgetPathDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    assertUnbound(principal);
    await this.budgets.clear(tenant_id, principal.keyId);
  }
}
