import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { type FieldError, ValidationProblem } from './problem.js';

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const path = /^\d+$/.test(error.property)
      ? `${parent}[${error.property}]`
      : parent
        ? `${parent}.${error.property}`
        : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ path, message }));
    return [...own, ...flatten(error.children ?? [], path)];
  });
}

/**
 * The global pipe: unknown fields are refused, payloads become DTO instances, and failures are
 * the contract's 400 problem with `errors: [{path, message}]`.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => {
      const fieldErrors = flatten(errors);
      const summary = fieldErrors
        .slice(0, 3)
        .map((e) => e.message)
        .join('; ');
      return new ValidationProblem(fieldErrors, summary || 'the request has invalid fields');
    },
  });
}
