import type { FieldError } from '../platform/http/problem.js';
import { prepareFormat } from './schema-formats.js';
import { compileLinearPattern } from './schema-patterns.js';
import { PatternRefusal } from './schema-regex.js';
import { joinPath } from './schema-errors.js';
import {
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_PATTERN_PROGRAM,
  MAX_SCHEMA_PATTERN_TEXT,
  MAX_SCHEMA_PATTERNS,
} from './tool.limits.js';

/**
 * The keyword put into every subschema of the copy ajv compiles: its value is the subschema's
 * own weight, and its code charges the work meter each time the subschema is applied.
 */
export const METER_KEYWORD = '$svcMeter';

/** Keywords whose value is one subschema, or an array of them (`items` may be either). */
const SUBSCHEMA = new Set([
  'additionalItems',
  'additionalProperties',
  'allOf',
  'anyOf',
  'contains',
  'else',
  'if',
  'items',
  'not',
  'oneOf',
  'prefixItems',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
/** Keywords whose value maps names to subschemas (`dependencies` also to name lists). */
const SUBSCHEMA_MAP = new Set([
  '$defs',
  'definitions',
  'dependencies',
  'dependentSchemas',
  'patternProperties',
  'properties',
]);
/**
 * Keywords whose values are data, copied as they are: instrumenting them would change what
 * they mean, so a `$ref` may not point into them either. (Anything else that is an object is
 * treated as a possible subschema, unknown keywords included: ajv compiles whatever a `$ref`
 * points at.)
 */
const DATA = new Set(['enum', 'const', 'dependentRequired', '$vocabulary']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** JSON values in a value (an enum member's cost to compare against). */
function nodes(value: Json): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + nodes(item), 1);
  if (isObject(value)) return Object.values(value).reduce((sum: number, v) => sum + nodes(v), 1);
  return 1;
}

/** The path of the first value nested deeper than `limit` levels, if any. */
function tooDeep(value: unknown, limit: number, path: string[] = []): string[] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (limit === 0) return path;
  for (const [key, member] of Object.entries(value)) {
    const found = tooDeep(member, limit - 1, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

function decodings(fragment: string): string[] {
  const variants = [fragment];
  for (let i = 0; i < 2; i++) {
    try {
      variants.push(decodeURIComponent(variants[variants.length - 1]));
    } catch {
      break;
    }
  }
  return variants;
}

/**
 * What is wrong with a `$ref` target, read from its JSON pointer: it must not lead into data
 * (an enum member, a const) or stop at a map of subschemas, because ajv would compile either
 * as a schema without the meter in it. Anchors and `$id`s only name subschemas.
 */
function refProblem(ref: string): string | undefined {
  const hash = ref.indexOf('#');
  if (hash < 0) return undefined;
  const fragment = ref.slice(hash + 1);
  if (!fragment.startsWith('/')) return undefined;
  for (const variant of decodings(fragment)) {
    let inMap = false;
    for (const raw of variant.slice(1).split('/')) {
      const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (!inMap && DATA.has(segment)) return `must point at a subschema, not into "${segment}"`;
      inMap = !inMap && SUBSCHEMA_MAP.has(segment);
    }
    if (inMap) return 'must point at a subschema, not at a map of subschemas';
  }
  return undefined;
}

/**
 * Keywords under which ajv drops errors it has collected (a failing `anyOf` branch, a
 * `contains` miss): with none of them, any error collected means the value is invalid.
 */
const DISCARDING = new Set(['anyOf', 'oneOf', 'not', 'if', 'contains']);

/** A tenant's schema as ajv should compile it, or what is wrong with it. */
export type InstrumentedSchema =
  | {
      ok: true;
      schema: JsonObject;
      /** Whether validation may collect errors and later drop them (see DISCARDING). */
      discardsErrors: boolean;
    }
  | { ok: false; errors: FieldError[] };

/**
 * Checks a schema for what would make its evaluation unbounded and returns the copy ajv
 * compiles, with METER_KEYWORD in every subschema. Refused (paths under `prefix`): nesting
 * deeper than MAX_SCHEMA_DEPTH, a pattern RE2 cannot evaluate in linear time (lookaround,
 * backreferences, too large an automaton), a `$ref` into data.
 */
export function instrumentSchema(schema: JsonObject, prefix: string): InstrumentedSchema {
  const deep = tooDeep(schema, MAX_SCHEMA_DEPTH);
  if (deep) {
    const path = joinPath(prefix, deep);
    return {
      ok: false,
      errors: [{ path, message: `nests deeper than ${MAX_SCHEMA_DEPTH} levels` }],
    };
  }
  const errors: FieldError[] = [];
  const refuse = (path: string[], message: string) => {
    if (errors.length < 20) errors.push({ path: joinPath(prefix, path), message });
  };
  // Every pattern in a schema position counts towards the bounds; only those reached through
  // known keywords are refused for their syntax (elsewhere ajv compiles them only if a $ref
  // points there, and then compilation fails). Once a bound is passed, nothing more compiles.
  let patterns = 0;
  let text = 0;
  let program = 0;
  const checkPattern = (source: string, path: string[], known: boolean) => {
    const within = () =>
      patterns <= MAX_SCHEMA_PATTERNS &&
      text <= MAX_SCHEMA_PATTERN_TEXT &&
      program <= MAX_SCHEMA_PATTERN_PROGRAM;
    if (!within()) return;
    patterns++;
    text += source.length;
    if (patterns > MAX_SCHEMA_PATTERNS) {
      refuse(path, `is one pattern too many: a schema may have ${MAX_SCHEMA_PATTERNS}`);
      return;
    }
    if (text > MAX_SCHEMA_PATTERN_TEXT) {
      refuse(
        path,
        `brings the schema's patterns to more than ${MAX_SCHEMA_PATTERN_TEXT} characters`,
      );
      return;
    }
    try {
      const compiled = compileLinearPattern(source, { unicode: true });
      program += compiled.size;
    } catch (error) {
      if (!(error instanceof PatternRefusal)) throw error;
      program += error.programSize ?? 0;
      if (known) refuse(path, error.message);
    }
    if (program > MAX_SCHEMA_PATTERN_PROGRAM) {
      refuse(
        path,
        `brings the schema's patterns to ${program} automaton instructions ` +
          `(at most ${MAX_SCHEMA_PATTERN_PROGRAM} together)`,
      );
    }
  };
  let discardsErrors = false;

  /** `known`: reached through keywords ajv knows, so `pattern` there is a pattern. */
  const subschema = (value: Json, path: string[], known: boolean): Json => {
    if (Array.isArray(value)) {
      return value.map((item, i) => subschema(item, [...path, `${i}`], known));
    }
    if (!isObject(value)) return value;
    // Built from entries, so a member named "__proto__" stays a member.
    const copy: Array<[string, Json]> = [];
    let weight = 1;
    for (const [key, member] of Object.entries(value)) {
      if (key === METER_KEYWORD) continue; // only the gateway's own
      const at = [...path, key];
      weight += 1;
      if (DISCARDING.has(key)) discardsErrors = true;
      if (DATA.has(key)) {
        copy.push([key, member]);
        weight += nodes(member);
      } else if (SUBSCHEMA_MAP.has(key) && isObject(member)) {
        const map = Object.entries(member).map(([name, entry]): [string, Json] => {
          if (key === 'patternProperties') checkPattern(name, [...at, name], known);
          return [name, subschema(entry, [...at, name], known)];
        });
        copy.push([key, Object.fromEntries(map)]);
        weight += map.length;
      } else {
        if (key === 'pattern' && typeof member === 'string') checkPattern(member, at, known);
        if (key === 'format' && typeof member === 'string') prepareFormat(member);
        if ((key === '$ref' || key === '$dynamicRef') && typeof member === 'string') {
          const problem = refProblem(member);
          if (problem) refuse(at, problem);
        }
        if ((key === 'required' || key === 'type') && Array.isArray(member)) {
          weight += member.length;
        }
        copy.push([key, subschema(member, at, known && SUBSCHEMA.has(key))]);
      }
    }
    copy.push([METER_KEYWORD, weight]);
    return Object.fromEntries(copy);
  };

  const instrumented = subschema(schema, [], true) as JsonObject;
  return errors.length > 0
    ? { ok: false, errors }
    : { ok: true, schema: instrumented, discardsErrors };
}
