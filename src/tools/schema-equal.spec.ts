import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { createAjv } from './schema-ajv.js';
import { enumMatcher, jsonEqual } from './schema-equal.js';

/** JSON values whose members are often named like Object.prototype's methods. */
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(0, 1, 1.5, '', 'a', '1', true, false, null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom(
        'a',
        'b',
        'toString',
        'valueOf',
        'constructor',
        'hasOwnProperty',
        '__proto__',
      ),
      tie('value'),
      { maxKeys: 3 },
    ),
  ),
})).value;

/** As a JSON document carries it: parsed, so `__proto__` is an own member. */
const parsed = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

describe('jsonEqual', () => {
  it('is deep equality of JSON documents, whatever the members are named or ordered', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        const [left, right] = [parsed(a), parsed(b)];
        expect(jsonEqual(left, right)).toBe(isDeepStrictEqual(left, right));
        expect(jsonEqual(left, parsed(a))).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('never calls a member: what ajv took for a boxed value is data', () => {
    const data = parsed({ toString: false, valueOf: 1 });
    expect(jsonEqual(data, { k: 1 })).toBe(false);
    expect(jsonEqual(data, parsed({ valueOf: 1, toString: false }))).toBe(true);
    expect(jsonEqual(parsed({ constructor: {} }), parsed({ constructor: {} }))).toBe(true);
    expect(jsonEqual([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(jsonEqual(0, -0)).toBe(true);
  });
});

describe('enumMatcher', () => {
  it('finds scalars and structured values alike', () => {
    const matches = enumMatcher(['a', 1, null, { k: [1] }, [true]]);
    for (const yes of ['a', 1, -0 + 1, null, { k: [1] }, [true]]) expect(matches(yes)).toBe(true);
    for (const no of ['1', 2, false, {}, { k: [2] }, [], [true, true], { toString: 1 }]) {
      expect(matches(no)).toBe(false);
    }
  });
});

describe('const and enum in the gateway ajv', () => {
  const ajv = createAjv('draft-07', { allErrors: true, metaSchemas: false });
  const validate = ajv.compile({
    type: 'object',
    properties: { e: { enum: ['a', { k: 1 }] }, c: { const: { k: 1 } } },
  });
  const errors = (data: unknown) => {
    validate(data);
    return validate.errors?.map(({ instancePath, keyword, params, message }) => ({
      instancePath,
      keyword,
      params,
      message,
    }));
  };

  it('reports what ajv reports, for members ajv could not compare', () => {
    expect(errors({ e: { toString: false }, c: { valueOf: 'x' } })).toEqual([
      {
        instancePath: '/e',
        keyword: 'enum',
        params: { allowedValues: ['a', { k: 1 }] },
        message: 'must be equal to one of the allowed values',
      },
      {
        instancePath: '/c',
        keyword: 'const',
        params: { allowedValue: { k: 1 } },
        message: 'must be equal to constant',
      },
    ]);
    expect(errors({ e: { k: 1 }, c: { k: 1 } })).toBeUndefined();
  });

  it('still refuses an empty enum when compiling', () => {
    expect(() => ajv.compile({ enum: [] })).toThrow('enum must have non-empty array');
  });
});
