import { describe, expect, it } from '@jest/globals';
import { METER_KEYWORD, instrumentSchema } from './schema-instrument.js';
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_PATTERNS } from './tool.limits.js';

type Json = Parameters<typeof instrumentSchema>[0];

const instrument = (schema: object) => instrumentSchema(schema as Json, 'parameters');
/** The member at `path` inside `value`. */
const at = (value: unknown, ...path: Array<string | number>): unknown =>
  path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], value);
const errorsOf = (schema: object) => {
  const result = instrument(schema);
  return result.ok ? [] : result.errors;
};

describe('instrumentSchema', () => {
  it('puts the meter into every subschema, and nowhere into data', () => {
    const schema = {
      type: 'object',
      properties: { a: { enum: [{ x: 1 }], items: [{ const: { y: 2 } }] } },
      required: ['a'],
      $defs: { d: { anyOf: [{ type: 'string' }, true] } },
      dependentRequired: { a: ['b'] },
      'x-vendor': { note: { type: 'string' } },
    };
    const result = instrument(schema);
    if (!result.ok) throw new Error('refused');
    const copy = result.schema;
    const meter = expect.any(Number) as unknown;
    expect(at(copy, METER_KEYWORD)).toBeGreaterThan(1);
    expect(at(copy, 'properties', METER_KEYWORD)).toBeUndefined(); // a map of subschemas
    expect(at(copy, 'properties', 'a', METER_KEYWORD)).toEqual(meter);
    expect(at(copy, 'properties', 'a', 'enum')).toEqual([{ x: 1 }]);
    expect(at(copy, 'properties', 'a', 'items', 0, METER_KEYWORD)).toEqual(meter);
    expect(at(copy, 'properties', 'a', 'items', 0, 'const')).toEqual({ y: 2 });
    expect(at(copy, '$defs', 'd', 'anyOf', 0, METER_KEYWORD)).toEqual(meter);
    expect(at(copy, '$defs', 'd', 'anyOf', 1)).toBe(true);
    expect(at(copy, 'dependentRequired')).toEqual({ a: ['b'] });
    expect(at(copy, 'x-vendor', 'note', METER_KEYWORD)).toEqual(meter);
    expect(result.discardsErrors).toBe(true);
    expect(schema).not.toHaveProperty(METER_KEYWORD); // the tenant's schema is left alone
  });

  it('weighs what a subschema does on its own (enum members, required names)', () => {
    const weight = (schema: object) => {
      const result = instrument(schema);
      return result.ok ? (result.schema[METER_KEYWORD] as number) : NaN;
    };
    const small = weight({ type: 'object', enum: [1] });
    const large = weight({ type: 'object', enum: Array.from({ length: 1000 }, (_, i) => i) });
    expect(large - small).toBeGreaterThanOrEqual(999);
    expect(instrument({ type: 'object', properties: { a: {} } })).toMatchObject({
      discardsErrors: false,
    });
  });

  it(`refuses nesting deeper than ${MAX_SCHEMA_DEPTH} levels, naming where`, () => {
    let deep: object = { type: 'string' };
    for (let i = 0; i < MAX_SCHEMA_DEPTH; i++) deep = { not: deep };
    expect(errorsOf({ type: 'object', properties: { a: deep } })).toEqual([
      {
        path: expect.stringMatching(/^parameters\.properties\.a(\.not)+$/),
        message: `nests deeper than ${MAX_SCHEMA_DEPTH} levels`,
      },
    ]);
    let fine: object = { type: 'string' };
    for (let i = 0; i < MAX_SCHEMA_DEPTH - 4; i++) fine = { not: fine };
    expect(errorsOf({ type: 'object', properties: { a: fine } })).toEqual([]);
  });

  it('refuses patterns RE2 cannot evaluate, with their paths', () => {
    expect(
      errorsOf({
        type: 'object',
        properties: { s: { type: 'string', pattern: '^(?=a)a+$' } },
        patternProperties: { '^(a)\\1$': {} },
        propertyNames: { pattern: '(?<!x)y' },
      }),
    ).toEqual([
      {
        path: 'parameters.properties.s.pattern',
        message: expect.stringMatching(/^uses lookahead .* linear-time pattern engine \(RE2\)/),
      },
      {
        path: 'parameters.patternProperties["^(a)\\\\1$"]',
        message: expect.stringMatching(/^uses a backreference/),
      },
      { path: 'parameters.propertyNames.pattern', message: expect.stringMatching(/lookbehind/) },
    ]);
  });

  it('bounds the patterns of one schema, in number and in automaton size', () => {
    const many = Object.fromEntries(
      Array.from({ length: MAX_SCHEMA_PATTERNS + 5 }, (_, i) => [`p${i}`, { pattern: `^a${i}$` }]),
    );
    expect(errorsOf({ type: 'object', properties: many })).toEqual([
      {
        path: `parameters.properties.p${MAX_SCHEMA_PATTERNS}.pattern`,
        message: expect.stringMatching(/^is one pattern too many/),
      },
    ]);
    const large = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`p${i}`, { pattern: `^[a-z]{900}${i}$` }]),
    );
    expect(errorsOf({ type: 'object', properties: large })).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/automaton instructions/) }),
    ]);
    const long = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [
        `p${i}`,
        { pattern: Array.from({ length: 600 }, (_, j) => `w${i}x${j}`).join('|') },
      ]),
    );
    expect(errorsOf({ type: 'object', properties: long })).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/more than 16384 characters$/) }),
    ]);
    expect(errorsOf({ type: 'object', properties: { a: { pattern: 'a{1000}b{1000}' } } })).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/^is too large/) }),
    ]);
  });

  it('refuses a $ref into data or at a map of subschemas, however it is spelled', () => {
    for (const ref of ['#/enum/0', '#/properties/a/const', '#/%65num/0', '#/%2565num/0']) {
      expect(errorsOf({ type: 'object', enum: [{}], properties: { a: { $ref: ref } } })).toEqual([
        {
          path: 'parameters.properties.a.$ref',
          message: expect.stringMatching(/^must point at a subschema/),
        },
      ]);
    }
    expect(errorsOf({ type: 'object', properties: { a: { $ref: '#/properties' } } })).toEqual([
      expect.objectContaining({ message: 'must point at a subschema, not at a map of subschemas' }),
    ]);
    // A property named like a data keyword is a subschema.
    expect(
      errorsOf({ type: 'object', properties: { enum: {}, a: { $ref: '#/properties/enum' } } }),
    ).toEqual([]);
  });
});
