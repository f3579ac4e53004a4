import type { Type } from '@nestjs/common';
import { TransformationType } from 'class-transformer';
import { classPrototypes, fieldShape } from './dto/field-shapes.js';
import { transformerMetadata } from './dto/transformer-metadata.js';
import { unboxInput } from './validation-input.js';

/** Per DTO class, per field: whether class-transformer would only copy its value. */
const COPIED_AS_IS = new WeakMap<Type, Map<string, boolean>>();

/**
 * The DTO instance class-transformer's `plainToInstance` would make of `prepared` (what
 * prepareInput returned for a payload with no unknown field, so its keys are the DTO's own and
 * the cache below stays bounded), made without it when it would only copy each field: a new
 * instance with the fields assigned and the boxed values put back (unboxInput). Undefined when
 * it would do more for any field present (a nested DTO, a conversion, an exposed or excluded
 * name, an accessor or method of that name), or `prepared` is not an object: the caller
 * transforms then.
 *
 * class-transformer walks every field of every payload (its metadata lookups for each, a copy of
 * each value) and Nest's pipe awaits it and the validation; for the DTOs most requests carry
 * (a tool call's, a run's prompt) it only copies, and that is most of the pipe's time.
 */
export function plainDto(type: Type, prepared: unknown): object | undefined {
  if (prepared === null || typeof prepared !== 'object' || Array.isArray(prepared)) {
    return undefined;
  }
  for (const key of Object.keys(prepared)) if (!copiedAsIs(type, key)) return undefined;
  const dto = Object.assign(new type() as object, prepared);
  unboxInput(dto);
  return dto;
}

function copiedAsIs(type: Type, key: string): boolean {
  let fields = COPIED_AS_IS.get(type);
  if (!fields) {
    fields = new Map();
    COPIED_AS_IS.set(type, fields);
  }
  let copied = fields.get(key);
  if (copied === undefined) {
    copied = decide(type, key);
    fields.set(key, copied);
  }
  return copied;
}

/** As class-transformer's TransformOperationExecutor decides for a plain-to-class field. */
function decide(type: Type, key: string): boolean {
  if (transformerMetadata.getStrategy(type) !== 'none') return false;
  if (
    transformerMetadata.findTypeMetadata(type, key) ||
    transformerMetadata.findExposeMetadata(type, key) ||
    transformerMetadata.findExcludeMetadata(type, key)
  ) {
    return false;
  }
  // RawJson's Transform hands the value on as it is.
  const transforms = transformerMetadata.findTransformMetadatas(
    type,
    key,
    TransformationType.PLAIN_TO_CLASS,
  );
  if (transforms.length > 0 && !fieldShape(type, key)?.raw) return false;
  // It leaves out a field the class has as an accessor or a method.
  for (const prototype of classPrototypes(type)) {
    if (Object.getOwnPropertyDescriptor(prototype, key)) return false;
  }
  return typeof (new type() as Record<string, unknown>)[key] !== 'function';
}
