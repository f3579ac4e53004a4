import { describe, expect, it } from '@jest/globals';
import type { ConfigService } from '@nestjs/config';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import fc from 'fast-check';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { ProblemException } from '../platform/http/problem.js';
import { toFieldErrors } from './schema-errors.js';
import { SchemaValidator } from './schema-validator.js';
import type { JsonSchemaObject } from './tool.types.js';

/** A validator whose deadline is `ms` (SVC_SCHEMA_TIMEOUT_MS). */
const withDeadline = (ms: number) =>
  new SchemaValidator({
    get: () => ({ validationTimeoutMs: ms }),
  } as unknown as ConfigService<GatewayConfig, true>);

/** A generous deadline: these tests are about work, not about how busy the machine is. */
const patient = withDeadline(10_000);
const hasty = withDeadline(50);

const compile = (validator: SchemaValidator, schema: object) =>
  validator.compile(schema as JsonSchemaObject);

/** The problem a validation threw, as `{status, slug}`. */
function refusal(work: () => unknown): { status: number; slug?: string; detail: string } {
  try {
    work();
  } catch (error) {
    if (error instanceof ProblemException) {
      return { status: error.getStatus(), slug: error.slug, detail: error.message };
    }
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('the review: a ReDoS pattern', () => {
  const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };

  it('registers, and is evaluated in linear time', () => {
    expect(patient.check(schema)).toEqual([]);
    // A backtracking engine would take 2^29 steps here, far past even the patient deadline.
    const validate = compile(patient, schema);
    const started = performance.now();
    expect(validate({ s: `${'a'.repeat(29)}!` })).toEqual([
      { path: 's', message: 'must match pattern "^(a+)+$"' },
    ]);
    expect(validate({ s: 'aaaa' })).toEqual([]);
    expect(compile(patient, schema)({ s: `${'a'.repeat(500_000)}!` })).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('lookaround is refused at registration, with the path and why', () => {
    expect(
      patient.check({
        type: 'object',
        properties: { s: { type: 'string', pattern: '^(?!admin)[a-z]+$' } },
      }),
    ).toEqual([
      {
        path: 'parameters.properties.s.pattern',
        message:
          'uses lookahead "(?!…)", which the linear-time pattern engine (RE2) does not support',
      },
    ]);
  });
});

describe('the review: uniqueItems over 20,000 items', () => {
  const schema = { type: 'object', properties: { a: { type: 'array', uniqueItems: true } } };
  const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `item-${i}` }));

  it('is checked in linear time', () => {
    const validate = compile(patient, schema);
    expect(validate({ a: items })).toEqual([]);
    expect(validate({ a: [...items, { name: 'item-3', id: 3 }] })).toEqual([
      { path: 'a', message: 'must NOT have duplicate items (items ## 3 and 20000 are identical)' },
    ]);
  });
});

describe('work that grows faster than the arguments is stopped', () => {
  it('exponential $ref fan-out: 422 arguments-too-complex', () => {
    const validate = compile(hasty, {
      type: 'object',
      $defs: {
        t: {
          anyOf: [
            { type: 'array', items: { $ref: '#/$defs/t' } },
            { type: 'array', items: { $ref: '#/$defs/t' } },
          ],
          not: { type: 'array', maxItems: 0 },
        },
      },
      properties: { x: { $ref: '#/$defs/t' } },
    });
    let nested: unknown = [];
    for (let i = 0; i < 40; i++) nested = [nested];
    // Stopped at the deadline, or once its failing branches pass 10,000 errors: either way,
    // long before the 2^40 steps it asks for.
    expect(refusal(() => validate({ x: nested }))).toEqual({
      status: 422,
      slug: 'arguments-too-complex',
      detail: expect.stringMatching(/did not finish within 50 ms|failing subschemas/) as unknown,
    });
  });

  it('many subschemas applied to one long string: 422 arguments-too-complex', () => {
    const schema = {
      type: 'object',
      properties: { s: { allOf: Array.from({ length: 2000 }, () => ({ maxLength: 5_000_000 })) } },
    };
    expect(compile(patient, schema)({ s: 'x'.repeat(10) })).toEqual([]);
    const validate = compile(hasty, schema);
    expect(refusal(() => validate({ s: 'x'.repeat(1_000_000) }))).toMatchObject({
      status: 422,
      slug: 'arguments-too-complex',
    });
  });

  it('arguments nested too deeply for the stack: 422, not 500', () => {
    const validate = compile(patient, {
      type: 'object',
      $defs: { n: { type: 'array', items: { $ref: '#/$defs/n' } } },
      properties: { a: { $ref: '#/$defs/n' } },
    });
    let nested: unknown[] = [];
    for (let i = 0; i < 200_000; i++) nested = [nested];
    expect(refusal(() => validate({ a: nested }))).toMatchObject({
      status: 422,
      slug: 'arguments-too-complex',
    });
  });

  it('a long list of errors is cut short: 500,000 bad items, 20 errors', () => {
    const validate = compile(patient, {
      type: 'object',
      properties: { a: { type: 'array', items: { type: 'string' } } },
    });
    const errors = validate({ a: Array.from({ length: 500_000 }, () => 1) });
    expect(errors).toHaveLength(20);
    expect(errors[0]).toEqual({ path: 'a[0]', message: 'must be string' });
  });

  it('failing anyOf branches are weighed, not mistaken for errors', () => {
    const validate = compile(patient, {
      type: 'object',
      properties: {
        a: { anyOf: [{ items: { type: 'string' } }, { items: { type: 'integer' } }] },
      },
    });
    expect(validate({ a: Array.from({ length: 5000 }, () => 1) })).toEqual([]);
    expect(validate({ a: [1, 'x'] })).toEqual(
      expect.arrayContaining([{ path: 'a', message: 'must match a schema in anyOf' }]),
    );
  });
});

describe('what cannot be metered is refused', () => {
  it('a $ref to a meta-schema', () => {
    expect(
      patient.check({
        type: 'object',
        properties: { s: { $ref: 'http://json-schema.org/draft-07/schema#' } },
      }),
    ).toEqual([{ path: 'parameters', message: expect.stringMatching(/^cannot be compiled: /) }]);
  });

  it('a stored schema that predates the checks fails closed on every call', () => {
    const validate = patient.cached('legacy', {
      type: 'object',
      properties: { s: { type: 'string', pattern: '^(?=a)a+$' } },
    });
    const problem = refusal(() => validate({ s: 'a' }));
    expect(problem).toEqual({
      status: 422,
      slug: 'tool-schema-unsupported',
      detail: expect.stringMatching(/parameters\.properties\.s\.pattern uses lookahead/) as unknown,
    });
    expect(refusal(() => validate({}))).toEqual(problem);
  });
});

describe('valid schemas validate as ajv always did (property)', () => {
  const reference = new Ajv({ allErrors: true, strict: false });
  formats.default(reference);
  const leaf = fc.oneof(
    fc.constant({ type: 'string' }),
    fc.constant({ type: 'integer', minimum: 0 }),
    fc.constant({ type: 'string', pattern: '^[a-c]+$', maxLength: 4 }),
    fc.constant({ type: 'string', format: 'email' }),
    fc.constant({ enum: ['a', 1, null, { k: 1 }] }),
    fc.constant({ const: [1, 2] }),
    fc.constant({ type: 'array', items: { type: 'number' }, uniqueItems: true }),
    fc.constant({ type: 'array', uniqueItems: true }),
  );
  const schema = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.record({ anyOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
      fc.record({ not: tie('node') }),
      fc.record({ type: fc.constant('array'), items: tie('node'), minItems: fc.nat(2) }),
      fc.record({
        type: fc.constant('object'),
        properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('node'), { maxKeys: 3 }),
        required: fc.constantFrom([], ['a']),
        additionalProperties: fc.boolean(),
      }),
    ),
  })).node;
  const data = fc.jsonValue({ maxDepth: 3 });

  it('same verdicts, same errors', () => {
    fc.assert(
      fc.property(schema, fc.array(data, { maxLength: 4 }), (node, values) => {
        const root = { type: 'object', properties: { v: node } };
        const ours = compile(patient, root);
        const theirs = reference.compile(root);
        for (const value of values) {
          const args = JSON.parse(JSON.stringify({ v: value })) as unknown;
          try {
            theirs(args);
          } catch {
            // ajv's own const/enum call a member named toString or valueOf (schema-equal.spec.ts
            // checks ours against a reference of its own).
            expect(ours(args)).toEqual(expect.any(Array));
            continue;
          }
          expect(ours(args)).toEqual(toFieldErrors(theirs.errors));
        }
      }),
      { numRuns: 200 },
    );
  });
});
