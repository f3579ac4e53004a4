import { type Type as Class, applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject, ValidateNested } from 'class-validator';
import { declareFieldShape } from './field-shapes.js';

const shape =
  (declared: Parameters<typeof declareFieldShape>[2]): PropertyDecorator =>
  (target, key) =>
    declareFieldShape(target, key, declared);

/**
 * A nested DTO. `@ValidateNested` alone accepts an array (it validates each item, and an empty
 * array has none) and answers a string with an odd message; this requires an object.
 */
export function Nested(type: () => Class): PropertyDecorator {
  return applyDecorators(
    shape({ nested: type }),
    IsObject({ message: '$property must be an object' }),
    ValidateNested(),
    Type(type),
  );
}

/**
 * An array of nested DTOs with at most `max` items. A longer array is refused by the
 * validation pipe before any item is transformed or validated, so the work and the error list
 * stay bounded by `max` whatever the body holds.
 */
export function NestedArray(type: () => Class, bounds: { max: number; min?: number }) {
  return applyDecorators(
    shape({ nested: type, array: true, maxItems: bounds.max }),
    IsArray(),
    ...(bounds.min === undefined ? [] : [ArrayMinSize(bounds.min)]),
    ArrayMaxSize(bounds.max),
    ValidateNested({ each: true }),
    Type(type),
  );
}
