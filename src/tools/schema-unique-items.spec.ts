import { describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { validationMeter } from './schema-budget.js';
import { createAjv } from './schema-ajv.js';
import { findDuplicate } from './schema-unique-items.js';

/** ajv's own uniqueItems (pairwise deep equality) as the reference. */
const reference = new Ajv({ allErrors: true, strict: false });
const linear = createAjv('draft-07', { allErrors: true, metaSchemas: false });

function errorsOf(ajv: Ajv, schema: object, data: unknown): unknown {
  const validate = ajv.compile(schema);
  validate(data);
  return validate.errors?.map(({ instancePath, keyword, params, message }) => ({
    instancePath,
    keyword,
    params,
    message,
  }));
}

const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(0, 1, -0, 1.5, 'a', 'b', '1', true, false, null, '__proto__'),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__', '10', '2'), tie('value'), {
      maxKeys: 3,
    }),
  ),
})).value;

describe('uniqueItems in linear time', () => {
  it('reports what ajv reports, for any items (property)', () => {
    const schemas = [
      { uniqueItems: true },
      { items: { type: 'integer' }, uniqueItems: true },
      { items: { type: ['string', 'number'] }, uniqueItems: true },
      { items: { type: ['boolean', 'null'] }, uniqueItems: true },
    ];
    fc.assert(
      fc.property(
        fc.array(json, { maxLength: 8 }),
        fc.constantFrom(...schemas),
        (items, schema) => {
          // ajv keys scalars by their text in an object, where "__proto__" is lost (an ajv bug).
          fc.pre(!JSON.stringify(items).includes('__proto__') || !('items' in schema));
          const data = JSON.parse(JSON.stringify(items)) as unknown; // arguments are parsed JSON
          expect(errorsOf(linear, schema, data)).toEqual(errorsOf(reference, schema, data));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('sees members in any order as equal, and -0 as 0', () => {
    expect(
      findDuplicate([
        { a: 1, b: { c: [1, { d: 2, e: 3 }] } },
        { b: { c: [1, { e: 3, d: 2 }] }, a: 1 },
      ]),
    ).toEqual([1, 0]);
    expect(findDuplicate([0, -0])).toEqual([1, 0]);
    expect(findDuplicate([JSON.parse('{"__proto__":1}'), {}])).toBeUndefined();
    expect(findDuplicate(JSON.parse('[{"__proto__":1},{"__proto__":1}]') as unknown[])).toEqual([
      1, 0,
    ]);
    expect(findDuplicate(['1', 1, [1], { 1: 1 }])).toBeUndefined();
  });

  it('checks 20,000 objects with a bounded amount of work', () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({
      name: `item-${i}`,
      id: i,
      tags: ['x'],
    }));
    // About 100 units per member: the pairwise comparison would be 200 million comparisons.
    const duplicate = validationMeter.run({ budget: 20_000_000, maxErrors: 100 }, () =>
      findDuplicate([...items, { ...items[7] }]),
    );
    expect(duplicate).toEqual([20_000, 7]);
  });
});
