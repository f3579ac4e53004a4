import { type CodeKeywordDefinition, type KeywordCxt, _, str } from 'ajv';
import { validationMeter } from './schema-budget.js';

/**
 * `uniqueItems` in linear time. ajv compares every pair of items with a deep equality unless the
 * items are declared scalars (20,000 objects: 200 million comparisons); here each item is
 * reduced to a canonical JSON text (object members sorted) and the texts are hashed. The error
 * names the same pair of items ajv would.
 */

/** Units per JSON value (and per character of a string) that hashing reads. */
const NODE_UNITS = 40;

/** Charges for a member about to be serialised (strings by length). */
function charge(value: unknown): void {
  validationMeter.spend(NODE_UNITS + (typeof value === 'string' ? value.length : 0));
}

/** A prototype-less record: a member named "__proto__" stays a member. */
const emptyRecord = () => Object.create(null) as Record<string, unknown>;

/**
 * The value with every object's members in sorted order, copied only where needed (JSON texts
 * of ordinary items are mostly sorted already, and JSON.stringify is fast).
 */
function sortedMembers(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      charge(item);
      const sorted = sortedMembers(item);
      if (sorted !== item) (copy ??= [...(value as unknown[])])[index] = sorted;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const ordered = keys.every((key, i) => i === 0 || keys[i - 1] <= key);
  let copy = ordered ? undefined : emptyRecord();
  if (!ordered) keys.sort();
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index];
    charge(key);
    charge(record[key]);
    const sorted = sortedMembers(record[key]);
    if (sorted !== record[key] && !copy) {
      copy = emptyRecord();
      for (const earlier of keys.slice(0, index)) copy[earlier] = record[earlier];
    }
    if (copy) copy[key] = sorted;
  }
  return copy ?? value;
}

/** A JSON text equal for deep-equal JSON values only (-0 and 0 alike, as for ajv). */
function canonical(value: unknown): string {
  charge(value);
  return JSON.stringify(sortedMembers(value)) ?? 'null';
}

const SCALAR_CHECKS: Record<string, (item: unknown) => boolean> = {
  string: (item) => typeof item === 'string',
  number: (item) => typeof item === 'number' && Number.isFinite(item),
  integer: (item) => Number.isInteger(item),
  boolean: (item) => typeof item === 'boolean',
  null: (item) => item === null,
};

/** `[i, j]` as ajv's error reports it, or undefined when all items differ. */
export type DuplicatePair = [i: number, j: number];

/**
 * The pair ajv reports. With only scalar item types declared, ajv scans from the end, skips
 * items of other types, and reports the first item found again with the later one's index as
 * `j`; otherwise it reports the last item equal to an earlier one (`i`) and the nearest such
 * earlier one (`j`).
 */
export function findDuplicate(
  items: readonly unknown[],
  scalarTypes?: readonly string[],
): DuplicatePair | undefined {
  const seen = new Map<string, number>();
  if (scalarTypes) {
    const checks = scalarTypes.map((type) => SCALAR_CHECKS[type]);
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i];
      if (!checks.some((check) => check(item))) continue;
      const key = canonical(item);
      const later = seen.get(key);
      if (later !== undefined) return [i, later];
      seen.set(key, i);
    }
    return undefined;
  }
  let found: DuplicatePair | undefined;
  items.forEach((item, index) => {
    const key = canonical(item);
    const earlier = seen.get(key);
    if (earlier !== undefined) found = [index, earlier];
    seen.set(key, index);
  });
  return found;
}

/** The declared types of `items`, when they are all scalars (ajv's `canOptimize`). */
function scalarItemTypes(parentSchema: Record<string, unknown>): string[] | undefined {
  const items = parentSchema.items;
  if (items === null || typeof items !== 'object' || Array.isArray(items)) return undefined;
  const declared = (items as Record<string, unknown>).type;
  const types = Array.isArray(declared) ? declared : declared === undefined ? [] : [declared];
  if ((items as Record<string, unknown>).nullable === true && !types.includes('null')) {
    types.push('null');
  }
  if (types.length === 0) return undefined;
  if (!types.every((type) => typeof type === 'string' && type in SCALAR_CHECKS)) return undefined;
  return types as string[];
}

/** Replaces ajv's `uniqueItems` (remove that one first: `ajv.removeKeyword('uniqueItems')`). */
export const uniqueItemsKeyword: CodeKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  error: {
    message: ({ params: { i, j } }) =>
      str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
    params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
  },
  code(cxt: KeywordCxt) {
    const { gen, data } = cxt;
    if (cxt.schema !== true) return;
    const find = gen.scopeValue('func', { ref: findDuplicate });
    const types = scalarItemTypes(cxt.parentSchema);
    const pair = gen.const(
      'pair',
      types ? _`${find}(${data}, ${gen.scopeValue('obj', { ref: types })})` : _`${find}(${data})`,
    );
    cxt.setParams({ i: _`${pair}[0]`, j: _`${pair}[1]` });
    cxt.fail(_`${pair} !== undefined`);
  },
};
