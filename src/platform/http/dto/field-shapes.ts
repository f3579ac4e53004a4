import type { Type } from '@nestjs/common';
/**
 * What the validation pipe must know about a DTO's fields before class-transformer sees a
 * payload: which fields hold free-form JSON (kept as parsed, never walked), which hold nested
 * DTOs, and the most items an array field takes. The project's field decorators (RawJson,
 * Nested, NestedArray, BoundedArray) declare it; see validation-input.ts for its use.
 */
export interface FieldShape {
  /** Free-form JSON (tool arguments, schemas, metadata): bounded by depth and body size only. */
  raw?: true;
  /** The DTO class of a nested object, or of each item with `array`. */
  nested?: () => Type;
  array?: true;
  /** The most items the array may hold; a longer one is refused before any item is looked at. */
  maxItems?: number;
}

const SHAPES = new WeakMap<object, Map<string, FieldShape>>();

/** Records (merges) the shape of `key` on the class whose prototype is `prototype`. */
export function declareFieldShape(
  prototype: object,
  key: string | symbol,
  shape: FieldShape,
): void {
  if (typeof key !== 'string') return;
  let fields = SHAPES.get(prototype);
  if (!fields) {
    fields = new Map();
    SHAPES.set(prototype, fields);
  }
  fields.set(key, { ...fields.get(key), ...shape });
}

/** The prototypes of `type` and of the classes it extends, its own first (Object's left out). */
export function* classPrototypes(type: Type): Generator<object> {
  for (
    let prototype: unknown = type.prototype;
    prototype !== null && prototype !== Object.prototype && typeof prototype === 'object';
    prototype = Object.getPrototypeOf(prototype)
  ) {
    yield prototype;
  }
}

/** The declared shape of a field of `type` or of a class it extends; undefined when none. */
export function fieldShape(type: Type, key: string): FieldShape | undefined {
  for (const prototype of classPrototypes(type)) {
    const shape = SHAPES.get(prototype)?.get(key);
    if (shape) return shape;
  }
  return undefined;
}
