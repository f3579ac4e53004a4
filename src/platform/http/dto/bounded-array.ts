import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, IsArray } from 'class-validator';
import { declareFieldShape } from './field-shapes.js';

/**
 * An array of at most `max` plain items (add the item rule, e.g. `@IsString({ each: true })`).
 * A longer array is refused by the validation pipe before any item is looked at.
 */
export function BoundedArray(max: number): PropertyDecorator {
  return applyDecorators(
    (target: object, key: string | symbol) => declareFieldShape(target, key, { maxItems: max }),
    IsArray(),
    ArrayMaxSize(max),
  );
}
