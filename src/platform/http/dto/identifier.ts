import { applyDecorators } from '@nestjs/common';
import { IsNotEmpty, IsString, MaxLength, ValidateBy } from 'class-validator';
import { MAX_TENANT_ID, isSafeIdentifier } from '../../state/state-key.limits.js';

/** No control characters (NUL included) and no lone surrogates: see isSafeIdentifier. */
export function NoControlCharacters(): PropertyDecorator {
  return ValidateBy({
    name: 'noControlCharacters',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || isSafeIdentifier(value),
      defaultMessage: () => '$property must not contain control characters',
    },
  });
}

/** A caller-chosen identifier: a non-empty string of at most `max` characters, no controls. */
export function Identifier(max: number): PropertyDecorator {
  return applyDecorators(IsString(), IsNotEmpty(), MaxLength(max), NoControlCharacters());
}

/** `tenant_id` in a body or query. */
export const TenantId = (): PropertyDecorator => Identifier(MAX_TENANT_ID);
