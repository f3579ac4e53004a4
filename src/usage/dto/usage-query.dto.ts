import { IsString, ValidateBy } from 'class-validator';
import { TenantId } from '../../platform/http/dto/identifier.js';
import { IfPresent } from '../../platform/http/dto/if-present.js';
import { isCalendarDay } from '../usage-days.js';

/** A UTC calendar day, `YYYY-MM-DD`. */
function CalendarDay(): PropertyDecorator {
  return ValidateBy({
    name: 'calendarDay',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isCalendarDay(value),
      defaultMessage: () => '$property must be a calendar day, YYYY-MM-DD (UTC)',
    },
  });
}

/** GET /v1/usage?tenant_id=&from=&to= */
export class UsageQueryDto {
  @TenantId() tenant_id!: string;
  /** The first day counted; default the first day of `to`'s month. */
  @IfPresent() @IsString() @CalendarDay() from?: string;
  /** The last day counted; default today (UTC). */
  @IfPresent() @IsString() @CalendarDay() to?: string;
}
