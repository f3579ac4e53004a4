import { ValidateIf } from 'class-validator';

/**
 * An optional field: absent (`undefined`) skips its rules, anything else, `null` included, must
 * pass them. class-validator's `@IsOptional` also skips `null`, which then reaches code that
 * expects the declared type (a `null` prompt was a 500). Use `@IsOptional` only where `null`
 * means something (the board's `assignee: null` unassigns).
 */
export const IfPresent = (): PropertyDecorator =>
  ValidateIf((_object: unknown, value: unknown) => value !== undefined);

/**
 * An optional field of a wire whose clients send `null` for "the default" (OpenAI's request
 * marks most settings `T | null`): absent and `null` both skip its rules, anything else must
 * pass them. The REST API's own fields use IfPresent.
 */
export const IfSet = (): PropertyDecorator =>
  ValidateIf((_object: unknown, value: unknown) => value !== undefined && value !== null);
