import { applyDecorators } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';

/** An optional integer variable within [min, max]. */
export function OptionalInt(min: number, max: number): PropertyDecorator {
  const message = `must be an integer between ${min} and ${max}`;
  return applyDecorators(
    IsOptional(),
    Type(() => Number),
    IsInt({ message }),
    Min(min, { message }),
    Max(max, { message }),
  );
}

/** An optional variable that must be one of `values` (the message lists them). */
export function OptionalOneOf(values: readonly string[], message?: string): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    IsIn(values, { message: message ?? `must be one of ${values.join(', ')}` }),
  );
}

const parseBoolean = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return value;
};

/** An optional boolean variable: true/false, 1/0, yes/no, on/off. */
export function OptionalBoolean(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Transform(parseBoolean),
    IsBoolean({ message: 'must be true or false' }),
  );
}

/** A regular expression for a comma-separated list of `item` (spaces around commas allowed). */
export const commaList = (item: string) => new RegExp(String.raw`^${item}(\s*,\s*${item})*$`);
