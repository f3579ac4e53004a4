import { Injectable, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AnySchemaObject } from 'ajv';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { type FieldError, ProblemException } from '../platform/http/problem.js';
import { BoundedCache } from './bounded-cache.js';
import { UNMETERED } from './schema-compile-budget.js';
import { createAjv, type Dialect } from './schema-ajv.js';
import { CompiledContract } from './schema-contract.js';
import { DeadlineExceeded } from './schema-deadline.js';
import { toFieldErrors } from './schema-errors.js';
import { instrumentSchema } from './schema-instrument.js';
import { MAX_SCHEMA_BYTES } from './tool.limits.js';
import type { JsonSchemaObject } from './tool.types.js';

/**
 * Checks a tool's arguments: an empty list means they are valid. Throws ProblemException 422
 * `arguments-too-complex` when validation had to be stopped, and 422 `tool-schema-unsupported`
 * for a stored schema this version refuses.
 */
export type ArgumentsValidator = (value: unknown) => FieldError[];

/** Compiled contracts kept per replica; beyond this the least recently used are compiled again. */
export const SCHEMA_CACHE_CAPACITY = 2000;
/**
 * Their schemas' JSON together: a compiled contract takes about seven times its schema's size
 * in memory, so this keeps the cache near 100 MB even when every schema is near 64 KiB.
 */
export const SCHEMA_CACHE_BYTES = 16 * 1024 * 1024;

/** SVC_SCHEMA_TIMEOUT_MS unset: wall time one validation pass may take when large. */
export const DEFAULT_VALIDATION_TIMEOUT_MS = 250;

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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

type Prepared =
  | {
      ok: true;
      dialect: Dialect;
      body: AnySchemaObject;
      instrumented: AnySchemaObject;
      discardsErrors: boolean;
      /** The schema's JSON text, and its size in bytes. */
      text: string;
      bytes: number;
    }
  | { ok: false; errors: FieldError[] };

/**
 * What every use of a schema checks first: shape, size, dialect, and what would make its
 * evaluation unbounded. `body` is the schema without `$schema` (the dialect picks the ajv
 * class, whose meta-schema then applies); `instrumented` is the copy ajv compiles.
 */
function prepare(schema: unknown, prefix: string): Prepared {
  try {
    return prepareUnsafely(schema, prefix);
  } catch (error) {
    // Deep enough to overflow the stack (JSON.stringify, the walk, RE2's compiler), …
    const reason = error instanceof RangeError ? 'nests too deeply' : (error as Error).message;
    return { ok: false, errors: [{ path: prefix, message: `cannot be checked: ${reason}` }] };
  }
}

function prepareUnsafely(schema: unknown, prefix: string): Prepared {
  const problem = (path: string, message: string): Prepared => ({
    ok: false,
    errors: [{ path: path ? `${prefix}.${path}` : prefix, message }],
  });
  if (!isPlainObject(schema)) return problem('', 'must be a JSON Schema object');
  const text = JSON.stringify(schema);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_SCHEMA_BYTES) {
    return problem('', `must be at most ${MAX_SCHEMA_BYTES / 1024} KiB of JSON`);
  }
  if (schema.type !== 'object') {
    return problem('type', 'must be "object": tool arguments are a JSON object');
  }
  if (schema.$async !== undefined) {
    return problem('$async', 'asynchronous schemas are not supported');
  }
  const { $schema, ...body } = schema;
  const dialect = dialectOf($schema);
  if (!dialect) return problem('$schema', 'must be JSON Schema draft-07, 2019-09 or 2020-12');
  const instrumented = instrumentSchema(body as Parameters<typeof instrumentSchema>[0], prefix);
  if (!instrumented.ok) return instrumented;
  return {
    ok: true,
    dialect,
    body,
    instrumented: instrumented.schema,
    discardsErrors: instrumented.discardsErrors,
    text,
    bytes,
  };
}

/** "cannot be compiled: …" for what ajv throws (an unresolvable $ref, for one). */
function notCompilable(error: unknown, prefix: string): FieldError[] {
  const reason =
    error instanceof DeadlineExceeded
      ? `compiling it takes over ${error.ms} ms`
      : error instanceof RangeError
        ? 'its references nest too deeply'
        : (error as Error).message;
  return [{ path: prefix, message: `cannot be compiled: ${reason}` }];
}

/** The JSON text of a schema object; undefined for anything else (or too deep to write). */
function textOf(schema: unknown): string | undefined {
  if (!isPlainObject(schema)) return undefined;
  try {
    return JSON.stringify(schema);
  } catch {
    return undefined;
  }
}

/** A compiled schema, kept by its text. */
interface Compiled {
  validator: ArgumentsValidator;
  /** Passed registration's checks (the meta-schema included), so registering it again is free. */
  registered: boolean;
}

/**
 * JSON Schema checks for tool contracts (ajv): registration checks and cached argument
 * validators whose work is bounded (see schema-contract.ts and schema-budget.ts). Compiled
 * validators are kept by the schema's text, so the compilation registration did serves the
 * first call, registering the same schema again compiles nothing, and tenants with the same
 * schema share one (a contract is a pure function of its schema); a second map finds them by
 * contract key without serialising the schema on every call.
 */
@Injectable()
export class SchemaValidator {
  private readonly bySchema = new BoundedCache<string, Compiled>(
    SCHEMA_CACHE_CAPACITY,
    SCHEMA_CACHE_BYTES,
  );
  private readonly byKey = new BoundedCache<string, ArgumentsValidator>(SCHEMA_CACHE_CAPACITY);
  private readonly deadlineMs: number;

  constructor(@Optional() config?: ConfigService<GatewayConfig, true>) {
    this.deadlineMs =
      config?.get('tools', { infer: true }).validationTimeoutMs ?? DEFAULT_VALIDATION_TIMEOUT_MS;
  }

  /**
   * What is wrong with a schema a tenant wants to register; empty when it is usable. A schema
   * that has to be compiled is paid for by `account` (which may refuse it, see
   * SchemaCompileBudget).
   */
  check(schema: unknown, prefix = 'parameters', account = UNMETERED): FieldError[] {
    const text = textOf(schema);
    if (text !== undefined && this.bySchema.get(text)?.registered) return [];
    const prepared = prepare(schema, prefix);
    if (!prepared.ok) return prepared.errors;
    account.admit();
    const started = performance.now();
    try {
      const meta = createAjv(prepared.dialect, { allErrors: true, metaSchemas: true });
      if (meta.validateSchema(prepared.body) !== true) {
        return toFieldErrors(meta.errors, prefix, true);
      }
      const validator = this.validator(prepared.text, this.contract(prepared));
      this.bySchema.set(prepared.text, { validator, registered: true }, prepared.bytes);
      return [];
    } catch (error) {
      // An unresolvable $ref, a $ref to a meta-schema, …
      return notCompilable(error, prefix);
    } finally {
      account.charge(performance.now() - started);
    }
  }

  /** Compiles a schema of the gateway's own (uncached; for the built-ins). Throws for an unusable one. */
  compile(schema: JsonSchemaObject): ArgumentsValidator {
    const prepared = prepare(schema, 'parameters');
    if (!prepared.ok) {
      const reasons = prepared.errors.map(({ path, message }) => `${path} ${message}`);
      throw new Error(`unusable tool schema: ${reasons.join('; ')}`);
    }
    const contract = this.contract(prepared, true);
    return (value) => contract.validate(value);
  }

  /**
   * The validator of one contract, compiled on first use. The key must change whenever the
   * schema can (tenant, toolset, version, tool): versions only grow, so a key never goes stale.
   * A stored schema this version refuses (registered before a check existed) gets a validator
   * that refuses every call, so it can never be evaluated unbounded. A compilation is paid for
   * by `account`, as in `check`.
   */
  cached(key: string, schema: JsonSchemaObject, account = UNMETERED): ArgumentsValidator {
    const known = this.byKey.get(key);
    if (known) return known;
    const text = textOf(schema) ?? '';
    let validator = this.bySchema.get(text)?.validator;
    if (!validator) {
      const prepared = prepare(schema, 'parameters');
      account.admit();
      const started = performance.now();
      try {
        validator = this.fresh(text, prepared);
      } finally {
        account.charge(performance.now() - started);
      }
      if (text) {
        this.bySchema.set(text, { validator, registered: false }, prepared.ok ? prepared.bytes : 0);
      }
    }
    this.byKey.set(key, validator);
    return validator;
  }

  private contract(prepared: Prepared & { ok: true }, trusted = false): CompiledContract {
    const { dialect, instrumented, discardsErrors } = prepared;
    return CompiledContract.compile(
      dialect,
      instrumented,
      discardsErrors,
      this.deadlineMs,
      trusted,
    );
  }

  private fresh(text: string, prepared: Prepared): ArgumentsValidator {
    try {
      if (!prepared.ok) return unsupported(prepared.errors);
      return this.validator(text, this.contract(prepared));
    } catch (error) {
      return unsupported(notCompilable(error, 'parameters'));
    }
  }

  /** A contract's validator; one a deadline stopped is compiled afresh next time. */
  private validator(text: string, contract: CompiledContract): ArgumentsValidator {
    const validate: ArgumentsValidator = (value) => {
      try {
        return contract.validate(value);
      } finally {
        if (contract.stopped) this.forget(text, validate);
      }
    };
    return validate;
  }

  private forget(text: string, validator: ArgumentsValidator): void {
    if (this.bySchema.get(text)?.validator === validator) this.bySchema.delete(text);
    this.byKey.deleteWhere((cached) => cached === validator);
  }
}

/** A validator that refuses every call: the tool's stored schema is not usable. */
function unsupported(errors: FieldError[]): ArgumentsValidator {
  const reasons = errors
    .slice(0, 3)
    .map(({ path, message }) => `${path} ${message}`)
    .join('; ');
  return () => {
    throw new ProblemException(
      422,
      `the tool's schema is not accepted by this gateway (${reasons}); register the tool again ` +
        'with a schema that passes registration',
      'tool-schema-unsupported',
      errors,
    );
  };
}
