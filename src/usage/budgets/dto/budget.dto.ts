import { applyDecorators } from '@nestjs/common';
import { IsInt, Max, Min, ValidateIf } from 'class-validator';
import { TenantId } from '../../../platform/http/dto/identifier.js';
import { MAX_TOKEN_BUDGET } from '../../../platform/config/environment.js';

/** A budget field: `null` means no limit (unlike other optional fields, where null is refused). */
const BudgetTokens = (): PropertyDecorator => {
  const message = `$property must be null (no limit) or an integer between 0 and ${MAX_TOKEN_BUDGET}`;
  return applyDecorators(
    ValidateIf((_object: unknown, value: unknown) => value !== undefined && value !== null),
    IsInt({ message }),
    Min(0, { message }),
    Max(MAX_TOKEN_BUDGET, { message }),
  );
};

/** `/v1/budgets/{tenant_id}` */
export class BudgetPathDto {
  @TenantId() tenant_id!: string;
}

/**
 * PUT /v1/budgets/{tenant_id}: the tenant's own token budgets (prompt + completion tokens).
 * Each field: a number of tokens (0 stops every new run), `null` for no limit, or absent for
 * the gateway's default.
 */
export class BudgetDto {
  @BudgetTokens() daily_tokens?: number | null;
  @BudgetTokens() monthly_tokens?: number | null;
}
