import { describe, expect, it, jest } from '@jest/globals';
import { BoundedCache } from './bounded-cache.js';
import { CompiledContract } from './schema-contract.js';
import { joinPath } from './schema-errors.js';
import { SchemaValidator } from './schema-validator.js';
import type { JsonSchemaObject } from './tool.types.js';

const validator = new SchemaValidator();

const ORDER: JsonSchemaObject = {
  type: 'object',
  properties: {
    expression: { type: 'string' },
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
        required: ['name'],
      },
    },
    email: { type: 'string', format: 'email' },
  },
  required: ['expression'],
  additionalProperties: false,
};

describe('SchemaValidator.check (registration)', () => {
  it('accepts real-world schemas, unknown keywords and formats included', () => {
    expect(validator.check(ORDER)).toEqual([]);
    expect(validator.check({ type: 'object' })).toEqual([]);
    expect(
      validator.check({ type: 'object', 'x-vendor': true, properties: { a: { format: 'odd' } } }),
    ).toEqual([]);
    expect(
      validator.check({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { id: { type: 'string' } },
        properties: { id: { $ref: '#/$defs/id' }, tags: { prefixItems: [{ type: 'string' }] } },
      }),
    ).toEqual([]);
    expect(
      validator.check({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }),
    ).toEqual([]);
  });

  it('refuses a schema that is not an object schema', () => {
    expect(validator.check([])).toEqual([
      { path: 'parameters', message: 'must be a JSON Schema object' },
    ]);
    expect(validator.check({ type: 'string' })).toEqual([
      { path: 'parameters.type', message: 'must be "object": tool arguments are a JSON object' },
    ]);
    expect(validator.check({ properties: {} })).toEqual([
      expect.objectContaining({ path: 'parameters.type' }),
    ]);
  });

  it('reports meta-schema violations once per path', () => {
    expect(validator.check({ type: 'object', properties: { x: { type: 'nope' } } })).toEqual([
      {
        path: 'parameters.properties.x.type',
        message: 'must be equal to one of the allowed values',
      },
    ]);
    expect(
      validator.check({ type: 'object', properties: { x: { minLength: -1 } }, required: 'x' }),
    ).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'parameters.properties.x.minLength' }),
        expect.objectContaining({ path: 'parameters.required' }),
      ]),
    );
  });

  it('refuses schemas that cannot compile, other dialects and async schemas', () => {
    expect(
      validator.check({
        type: 'object',
        properties: { a: { $ref: 'https://example.com/a.json' } },
      }),
    ).toEqual([{ path: 'parameters', message: expect.stringMatching(/^cannot be compiled: /) }]);
    expect(
      validator.check({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } }),
    ).toEqual([
      {
        path: 'parameters.properties.a.pattern',
        message: expect.stringMatching(/^is not a valid regular expression: /),
      },
    ]);
    expect(
      validator.check({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }),
    ).toEqual([expect.objectContaining({ path: 'parameters.$schema' })]);
    expect(validator.check({ type: 'object', $async: true })).toEqual([
      expect.objectContaining({ path: 'parameters.$async' }),
    ]);
  });

  it('refuses schemas over the size limit', () => {
    const big = { type: 'object', description: 'x'.repeat(70 * 1024) };
    expect(validator.check(big)).toEqual([
      { path: 'parameters', message: 'must be at most 64 KiB of JSON' },
    ]);
  });

  it("keeps one schema's $id from resolving another's $ref", () => {
    const withId = {
      type: 'object',
      definitions: { shared: { $id: 'https://tenant-a.example/shared', type: 'string' } },
    };
    expect(validator.check(withId)).toEqual([]);
    validator.compile(withId as JsonSchemaObject);
    const usesId = {
      type: 'object',
      properties: { a: { $ref: 'https://tenant-a.example/shared' } },
    };
    expect(validator.check(usesId)).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/^cannot be compiled/) }),
    ]);
  });
});

describe('argument validation', () => {
  const validate = validator.compile(ORDER);

  it('accepts valid arguments and changes nothing', () => {
    const args = { expression: '1+1', items: [{ name: 'a', qty: 2 }] };
    expect(validate(args)).toEqual([]);
    expect(args).toEqual({ expression: '1+1', items: [{ name: 'a', qty: 2 }] });
  });

  it('reports every error with a path into the arguments', () => {
    expect(
      validate({ items: [{ qty: 0 }, { name: 3, qty: '2' }], extra: 1, email: 'not-an-email' }),
    ).toEqual(
      expect.arrayContaining([
        { path: 'expression', message: 'is required' },
        { path: 'extra', message: 'is not an allowed property' },
        { path: 'items[0].name', message: 'is required' },
        { path: 'items[0].qty', message: 'must be >= 1' },
        { path: 'items[1].name', message: 'must be string' },
        { path: 'items[1].qty', message: 'must be integer' },
        { path: 'email', message: 'must match format "email"' },
      ]),
    );
  });

  it('coerces nothing', () => {
    expect(validate({ expression: 12 })).toEqual([
      { path: 'expression', message: 'must be string' },
    ]);
  });

  it('reports a value that is not an object at the empty path', () => {
    expect(validate('text')).toEqual([{ path: '', message: 'must be object' }]);
    expect(validate(null)).toEqual([{ path: '', message: 'must be object' }]);
  });

  it('caches one compiled validator per key, shared by identical schemas', () => {
    const cached = validator.cached('k1', ORDER);
    expect(validator.cached('k1', { type: 'object' })).toBe(cached);
    expect(validator.cached('k2', ORDER)).toBe(cached);
    expect(validator.cached('k3', { ...ORDER, required: [] })).not.toBe(cached);
  });

  it('reuses what registration compiled', () => {
    const schema = { ...ORDER, description: 'registered once' };
    const compile = jest.spyOn(CompiledContract, 'compile');
    expect(validator.check(schema)).toEqual([]);
    expect(validator.check(JSON.parse(JSON.stringify(schema)))).toEqual([]);
    expect(compile).toHaveBeenCalledTimes(1);
    compile.mockRestore();
    const first = validator.cached('k4', schema);
    expect(validator.cached('k5', JSON.parse(JSON.stringify(schema)) as JsonSchemaObject)).toBe(
      first,
    );
  });
});

describe('joinPath', () => {
  it('writes indexes in brackets and quotes odd keys', () => {
    expect(joinPath('', ['items', '0', 'name'])).toBe('items[0].name');
    expect(joinPath('parameters', ['properties', 'a b', '$ref'])).toBe(
      'parameters.properties["a b"].$ref',
    );
    expect(joinPath('', [])).toBe('');
  });
});

describe('BoundedCache', () => {
  it('evicts the least recently used entry beyond its capacity', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('also bounds the weights of its entries together', () => {
    const cache = new BoundedCache<string, number>(10, 100);
    cache.set('a', 1, 60);
    cache.set('b', 2, 30);
    cache.set('c', 3, 30); // 120 > 100: a goes
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('b'), cache.get('c')]).toEqual([2, 3]);
    cache.set('huge', 4, 500); // kept alone rather than not at all
    expect(cache.size).toBe(1);
    expect(cache.get('huge')).toBe(4);
  });
});
