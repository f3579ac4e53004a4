import { type CodeKeywordDefinition, type KeywordCxt, _ } from 'ajv';

/**
 * `const` and `enum` with an equality over JSON values only. ajv's own (fast-deep-equal) treats
 * an object whose own `toString` or `valueOf` differs from Object.prototype's as a boxed value
 * and calls it: arguments `{"toString": false}` against `"const": {"k": 1}` threw a TypeError
 * out of validation, and `{"constructor": {}}` was unequal to itself. Here only own enumerable
 * members count, as in a JSON document.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) {
      if (!jsonEqual(a[index], b[index])) return false;
    }
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(right, key) || !jsonEqual(left[key], right[key])) return false;
  }
  return true;
}

/** Whether a value is one of `allowed`: scalars by a Set lookup, objects and arrays deeply. */
export function enumMatcher(allowed: readonly unknown[]): (value: unknown) => boolean {
  const scalars = new Set(allowed.filter((item) => item === null || typeof item !== 'object'));
  const structured = allowed.filter((item) => item !== null && typeof item === 'object');
  return (value) =>
    value !== null && typeof value === 'object'
      ? structured.some((item) => jsonEqual(value, item))
      : scalars.has(value);
}

/** Replaces ajv's `const` (remove that one first). */
export const constKeyword: CodeKeywordDefinition = {
  keyword: 'const',
  error: {
    message: 'must be equal to constant',
    params: ({ schemaCode }) => _`{allowedValue: ${schemaCode}}`,
  },
  code(cxt: KeywordCxt) {
    const allowed: unknown = cxt.schema;
    const equal = cxt.gen.scopeValue('func', { ref: jsonEqual });
    const constant = cxt.gen.scopeValue('obj', { ref: allowed });
    cxt.fail(_`!${equal}(${cxt.data}, ${constant})`);
  },
};

/** Replaces ajv's `enum` (remove that one first). */
export const enumKeyword: CodeKeywordDefinition = {
  keyword: 'enum',
  schemaType: 'array',
  error: {
    message: 'must be equal to one of the allowed values',
    params: ({ schemaCode }) => _`{allowedValues: ${schemaCode}}`,
  },
  code(cxt: KeywordCxt) {
    const allowed = cxt.schema as unknown[];
    if (allowed.length === 0) throw new Error('enum must have non-empty array');
    const matches = cxt.gen.scopeValue('func', { ref: enumMatcher(allowed) });
    cxt.fail(_`!${matches}(${cxt.data})`);
  },
};
