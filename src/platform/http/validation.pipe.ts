import {
  type ArgumentMetadata,
  Injectable,
  ValidationPipe,
  type ValidationError,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { ValidatorOptions } from 'class-validator';
import type { GatewayConfig } from '../config/gateway-config.js';
import { passesValidation } from './fast-validation.js';
import { DEFAULT_MAX_JSON_DEPTH } from './json-depth.js';
import { type FieldError, MAX_VALIDATION_ERRORS, ValidationProblem } from './problem.js';
import { plainDto } from './plain-dto.js';
import { prepareInput, unboxInput } from './validation-input.js';

/** Field errors in order, at most `limit` of them, and how many there were in all. */
export function fieldErrors(
  errors: ValidationError[],
  limit = MAX_VALIDATION_ERRORS,
): { errors: FieldError[]; total: number } {
  const kept: FieldError[] = [];
  let total = 0;
  // Depth-first in the order class-validator reports, without recursion.
  const pending: Array<{ error: ValidationError; parent: string }> = errors
    .map((error) => ({ error, parent: '' }))
    .reverse();
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { error, parent } = next;
    const path = /^\d+$/.test(error.property)
      ? `${parent}[${error.property}]`
      : parent
        ? `${parent}.${error.property}`
        : error.property;
    for (const message of Object.values(error.constraints ?? {})) {
      total++;
      if (kept.length < limit) kept.push({ path, message });
    }
    const children = error.children ?? [];
    for (let i = children.length - 1; i >= 0; i--)
      pending.push({ error: children[i], parent: path });
  }
  return { errors: kept, total };
}

function validationProblem(errors: ValidationError[]): ValidationProblem {
  const { errors: kept, total } = fieldErrors(errors);
  return ValidationProblem.listing(kept, total);
}

/**
 * Nest's ValidationPipe with work bounded by the DTO rather than by the body: prepareInput
 * checks the payload against what the DTO declares before class-transformer runs, and hands
 * free-form values past it. Nest's own passes over the whole value are left out: closing array
 * gaps (JSON and the query parser make none, and the DTO returned is class-transformer's copy)
 * and stripping prototype keys (at the DTO level they are unknown fields, and class-transformer
 * never copies `__proto__` or `constructor`; free-form values are not copied at all). A payload
 * class-transformer would only copy, and that passes, skips Nest's transformation (plainDto).
 */
class BoundedValidationPipe extends ValidationPipe {
  constructor(private readonly maxDepth: number) {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      stopAtFirstError: false,
      exceptionFactory: validationProblem,
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (!metadata.metatype || !this.toValidate(metadata)) {
      return super.transform(value, metadata) as Promise<unknown>;
    }
    const input = prepareInput(value, metadata.metatype, this.maxDepth);
    // A DTO class-transformer would only copy, valid as it is: no transformation, no errors.
    if (input.unknownCount === 0) {
      const dto = plainDto(metadata.metatype, input.value);
      if (dto !== undefined && passesValidation(dto)) return dto;
    }
    let transformed: unknown;
    try {
      transformed = await super.transform(input.value, metadata);
    } catch (error) {
      // Unknown fields were left out of the transformation; they join the other field errors.
      if (input.unknownCount === 0 || !(error instanceof ValidationProblem)) throw error;
      throw ValidationProblem.listing(
        [...input.unknown, ...(error.errors ?? [])],
        input.unknownCount + error.total,
      );
    }
    if (input.unknownCount > 0) throw ValidationProblem.listing(input.unknown, input.unknownCount);
    return transformed;
  }

  protected override closeArrayGaps(): void {}

  protected override stripProtoKeys(): void {}

  /** A body that passes every rule is answered at once; class-validator reports the others. */
  protected override validate(object: object, validatorOptions?: ValidatorOptions) {
    unboxInput(object);
    if (passesValidation(object)) return [];
    return super.validate(object, validatorOptions);
  }
}

/**
 * The validation pipe: unknown fields are refused, payloads become DTO instances, and failures
 * are the contract's 400 problem with at most MAX_VALIDATION_ERRORS `errors: [{path, message}]`.
 */
export function createValidationPipe(maxDepth = DEFAULT_MAX_JSON_DEPTH): ValidationPipe {
  return new BoundedValidationPipe(maxDepth);
}

/**
 * The validation pipe of the request DTOs routes take (ValidBody, ValidQuery, ValidParams), with
 * the configured SVC_MAX_JSON_DEPTH. Nest makes it once per module whose routes use it.
 */
@Injectable()
export class RequestValidationPipe extends BoundedValidationPipe {
  constructor(config: ConfigService<GatewayConfig, true>) {
    super(config.get('server', { infer: true }).maxJsonDepth);
  }
}
