import { Injectable } from '@nestjs/common';
import { type AnySchemaObject, Ajv, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { FieldError } from '../http/problem.js';
import { BoundedCache } from './bounded-cache.js';
import { toFieldErrors } from './schema-errors.js';
import { MAX_SCHEMA_BYTES } from './tool.limits.js';
import type { JsonSchemaObject } from './tool.types.js';

/** Checks a tool's arguments: an empty list means they are valid. */
export type ArgumentsValidator = (value: unknown) => FieldError[];

/** Compiled contracts kept per replica; beyond this the least recently used are compiled again. */
export const SCHEMA_CACHE_CAPACITY = 2000;

// Tenants send real-world schemas: unknown keywords and formats are tolerated (strict: false), all
// errors are reported, and nothing is coerced, defaulted or removed from the arguments.
const OPTIONS: Options = { allErrors: true, strict: false, logger: false };

type Dialect = 'draft-07' | '2019-09' | '2020-12';

function dialectOf(uri: unknown): Dialect | undefined {
  if (uri === undefined) return 'draft-07';
  if (typeof uri !== 'string') return undefined;
  const match =
    /^https?:\/\/json-schema\.org\/(draft-07|draft\/2019-09|draft\/2020-12)\/schema#?$/.exec(uri);
  if (!match) return undefined;
  return match[1] === 'draft-07'
    ? 'draft-07'
    : match[1] === 'draft/2019-09'
      ? '2019-09'
      : '2020-12';
}

/**
 * A fresh ajv for each compilation: an ajv instance keeps every `$id` it has seen in a registry
 * shared by later compilations, and one tenant's `$id` must never answer another tenant's `$ref`.
 * (Costs a few milliseconds, once per contract version.)
 */
function newAjv(dialect: Dialect, validateSchema: boolean): Ajv {
  const options = { ...OPTIONS, validateSchema };
  const ajv =
    dialect === '2020-12'
      ? new Ajv2020(options)
      : dialect === '2019-09'
        ? new Ajv2019(options)
        : new Ajv(options);
  formats.default(ajv);
  return ajv;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The schema without `$schema`: the dialect picks the ajv class, whose meta-schema then applies. */
function split(schema: Record<string, unknown>): { dialect?: Dialect; body: AnySchemaObject } {
  const { $schema, ...body } = schema;
  return { dialect: dialectOf($schema), body };
}

/** JSON Schema checks for tool contracts (ajv): registration checks and cached argument validators. */
@Injectable()
export class SchemaValidator {
  private readonly cache = new BoundedCache<string, ArgumentsValidator>(SCHEMA_CACHE_CAPACITY);

  /** What is wrong with a schema a tenant wants to register; empty when it is usable. */
  check(schema: unknown, prefix = 'parameters'): FieldError[] {
    const problem = (path: string, message: string): FieldError[] => [
      { path: path ? `${prefix}.${path}` : prefix, message },
    ];
    if (!isPlainObject(schema)) return problem('', 'must be a JSON Schema object');
    if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES) {
      return problem('', `must be at most ${MAX_SCHEMA_BYTES / 1024} KiB of JSON`);
    }
    if (schema.type !== 'object') {
      return problem('type', 'must be "object": tool arguments are a JSON object');
    }
    if (schema.$async !== undefined)
      return problem('$async', 'asynchronous schemas are not supported');
    const { dialect, body } = split(schema);
    if (!dialect) return problem('$schema', 'must be JSON Schema draft-07, 2019-09 or 2020-12');
    try {
      const ajv = newAjv(dialect, true);
      if (ajv.validateSchema(body) !== true) return toFieldErrors(ajv.errors, prefix, true);
      ajv.compile(body);
      return [];
    } catch (error) {
      // Unresolvable $ref, bad regex pattern, nesting deep enough to overflow the stack, …
      return problem('', `cannot be compiled: ${(error as Error).message}`);
    }
  }

  /** Compiles a schema (uncached; for the built-ins at startup). */
  compile(schema: JsonSchemaObject): ArgumentsValidator {
    const { dialect, body } = split(schema);
    const validate = newAjv(dialect ?? 'draft-07', false).compile(body);
    if ('$async' in validate) throw new Error('asynchronous schemas are not supported');
    return (value) => (validate(value) === true ? [] : toFieldErrors(validate.errors));
  }

  /**
   * The validator of one contract, compiled on first use. The key must change whenever the
   * schema can (tenant, toolset, version, tool): versions only grow, so a key never goes stale.
   */
  cached(key: string, schema: JsonSchemaObject): ArgumentsValidator {
    let validator = this.cache.get(key);
    if (!validator) {
      validator = this.compile(schema);
      this.cache.set(key, validator);
    }
    return validator;
  }
}
