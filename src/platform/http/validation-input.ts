import type { Type } from '@nestjs/common';
import { ValidationTypes, getMetadataStorage } from 'class-validator';
import { type FieldShape, fieldShape } from './dto/field-shapes.js';
import { tooDeep } from './json-depth.js';
import { type FieldError, MAX_VALIDATION_ERRORS, ValidationProblem } from './problem.js';

/**
 * The most values (DTO fields, array items, and the contents of a nested field the project's
 * decorators do not describe) a payload may hand to class-transformer and class-validator,
 * which go through each of them. The largest valid payload holds about 6,000 (a 100-step graph
 * whose steps depend on every earlier one).
 */
export const MAX_STRUCTURED_VALUES = 10_000;

/** Values on their way past class-transformer (see prepareInput). */
const BOXES = new WeakSet<() => unknown>();

function box(value: unknown): () => unknown {
  const boxed = () => value;
  BOXES.add(boxed);
  return boxed;
}

function isBox(value: unknown): value is () => unknown {
  return typeof value === 'function' && BOXES.has(value as () => unknown);
}

const isStructured = (value: unknown): value is object =>
  value !== null && typeof value === 'object';

interface DtoRules {
  /** The fields a DTO declares: those with any class-validator rule (what `whitelist` keeps). */
  known: ReadonlySet<string>;
  /** Fields with `@ValidateNested` that no project decorator describes (see prepareInput). */
  undescribedNested: ReadonlySet<string>;
}

const RULES = new WeakMap<Type, DtoRules>();

function rulesOf(type: Type): DtoRules {
  let rules = RULES.get(type);
  if (!rules) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(type, '', false, false);
    rules = {
      known: new Set(metadata.map((rule) => rule.propertyName)),
      undescribedNested: new Set(
        metadata
          .filter((rule) => rule.type === ValidationTypes.NESTED_VALIDATION)
          .map((rule) => rule.propertyName)
          .filter((name) => fieldShape(type, name)?.nested === undefined),
      ),
    };
    RULES.set(type, rules);
  }
  return rules;
}

function childPath(parent: string, key: string): string {
  if (/^\d+$/.test(key)) return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

const refuse = (path: string, message: string) => ValidationProblem.listing([{ path, message }]);

interface Pending {
  value: unknown;
  /** The DTO class `value` should be an instance of; undefined for a plain value. */
  type?: Type;
  path: string;
  /** `{}` and `[]` are depth 1, as in jsonTextTooDeep. */
  depth: number;
  /** Puts this DTO object's copy where its parent's copy holds it. */
  place?: (copy: Record<string, unknown>) => void;
}

export interface PreparedInput {
  /** What to hand to class-transformer. */
  value: unknown;
  /** The first unknown fields (at most MAX_VALIDATION_ERRORS), as forbidNonWhitelisted says. */
  unknown: FieldError[];
  unknownCount: number;
}

/**
 * Checks a payload before class-transformer touches it and returns what to transform, so that
 * the work of transforming and validating it is bounded whatever the body holds:
 *
 * - a field the DTO does not declare is left out of what is transformed and reported in
 *   `unknown` (`forbidNonWhitelisted` would refuse it only after transforming and validating
 *   it: 10,000 of them took a second);
 * - an array over its declared maximum (NestedArray, BoundedArray) → 400 before any item is
 *   looked at (60,000 `steps` took 4 s and answered 10 MB of errors);
 * - an array where a nested object belongs, or an object where an array of them belongs → 400
 *   (class-validator would validate each item or key on its own, one error each);
 * - more than MAX_STRUCTURED_VALUES values to walk, or nested deeper than `maxDepth` → 400.
 *
 * DTO objects are copied (the caller's body is left as it is) and every other object or array
 * (free-form RawJson fields, and values where a string or number belongs) is boxed: class-
 * transformer passes a box on without walking it, and unboxInput puts it back before
 * validation, so validators see exactly what was sent. `__proto__` and `constructor` keys of
 * a DTO object are unknown fields; inside free-form values they are data like any other.
 */
export function prepareInput(value: unknown, type: Type, maxDepth: number): PreparedInput {
  // Nest would build an instance per item, validate them, and then refuse the array anyway.
  if (Array.isArray(value)) throw refuse('', 'the request must be a JSON object');
  const unknown: FieldError[] = [];
  let unknownCount = 0;
  let budget = MAX_STRUCTURED_VALUES;
  const spend = (path: string) => {
    if (--budget < 0) {
      throw refuse(path, `the request holds more than ${MAX_STRUCTURED_VALUES} values`);
    }
  };
  let result = value;
  const pending: Pending[] = [
    { value, type, path: '', depth: 1, place: (copy) => (result = copy) },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: current, path, depth } = next;
    if (!isStructured(current)) continue;
    if (depth > maxDepth) throw tooDeep(maxDepth);
    if (next.type === undefined || Array.isArray(current)) {
      // A value nobody described: transformed as it is, so it is walked and counted here.
      for (const child of Object.values(current) as unknown[]) {
        spend(path);
        pending.push({ value: child, path, depth: depth + 1 });
      }
      continue;
    }
    const dto = next.type;
    const rules = rulesOf(dto);
    const source = current as Record<string, unknown>;
    const copy: Record<string, unknown> = {};
    next.place?.(copy);
    for (const [key, child] of Object.entries(source)) {
      const at = childPath(path, key);
      if (!rules.known.has(key)) {
        unknownCount++;
        if (unknown.length < MAX_VALIDATION_ERRORS) {
          unknown.push({ path: at, message: `property ${key} should not exist` });
        }
        continue;
      }
      spend(at);
      const field: FieldShape = fieldShape(dto, key) ?? {};
      copy[key] = child;
      if (!isStructured(child)) continue;
      if (field.maxItems !== undefined && Array.isArray(child) && child.length > field.maxItems) {
        throw refuse(at, `${key} must contain no more than ${field.maxItems} elements`);
      }
      const nested = field.raw ? undefined : field.nested?.();
      if (nested && field.array) {
        // An object here: class-validator would report each of its keys as an unknown field.
        if (!Array.isArray(child)) throw refuse(at, `${key} must be an array`);
        const items = child.slice();
        copy[key] = items;
        items.forEach((item, index) => {
          const itemPath = `${at}[${index}]`;
          spend(itemPath);
          if (Array.isArray(item)) throw refuse(itemPath, `each item of ${key} must be an object`);
          pending.push({
            value: item,
            type: nested,
            path: itemPath,
            depth: depth + 2,
            place: (itemCopy) => (items[index] = itemCopy),
          });
        });
      } else if (nested && !field.array) {
        if (Array.isArray(child)) throw refuse(at, `${key} must be an object`);
        pending.push({
          value: child,
          type: nested,
          path: at,
          depth: depth + 1,
          place: (childCopy) => (copy[key] = childCopy),
        });
      } else if (rules.undescribedNested.has(key)) {
        // A plain `@ValidateNested() @Type(...)`: class-transformer must build its instances.
        pending.push({ value: child, path: at, depth: depth + 1 });
      } else {
        copy[key] = box(child);
      }
    }
  }
  return { value: result, unknown, unknownCount };
}

/** Puts the values boxed by prepareInput back into a transformed DTO, in place. */
export function unboxInput(entity: unknown): void {
  const pending: unknown[] = [entity];
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    if (!isStructured(current)) continue;
    const record = current as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      if (isBox(child)) record[key] = child();
      else if (isStructured(child)) pending.push(child);
    }
  }
}
