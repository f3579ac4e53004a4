import type { ErrorObject } from 'ajv';
import type { FieldError } from '../platform/http/problem.js';

/** How many field errors one problem carries (allErrors can produce many for a big input). */
export const MAX_FIELD_ERRORS = 20;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `items[0].name` from a prefix and property names; odd keys are quoted: `tags["a b"]`. */
export function joinPath(prefix: string, segments: readonly string[]): string {
  let path = prefix;
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) path += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) path += path ? `.${segment}` : segment;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The property an error is really about, where ajv reports it on the parent object. */
function namedProperty(error: ErrorObject): string | undefined {
  const params = error.params as Record<string, unknown>;
  const name =
    params.missingProperty ??
    params.additionalProperty ??
    params.unevaluatedProperty ??
    params.propertyName;
  return typeof name === 'string' ? name : undefined;
}

function message(error: ErrorObject): string {
  if (error.keyword === 'required' || error.keyword === 'dependentRequired') return 'is required';
  if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') {
    return 'is not an allowed property';
  }
  return error.message ?? `fails ${error.keyword}`;
}

/**
 * ajv errors as the contract's `{path, message}` list, paths relative to `prefix`
 * (`expression`, `items[0].name`; the empty path is the value itself). Duplicates are dropped;
 * with `firstPerPath`, only the first message for each path is kept (meta-schema errors repeat).
 */
export function toFieldErrors(
  errors: readonly ErrorObject[] | null | undefined,
  prefix = '',
  firstPerPath = false,
): FieldError[] {
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const error of errors ?? []) {
    const segments = pointerSegments(error.instancePath);
    const property = namedProperty(error);
    if (property !== undefined) segments.push(property);
    const field = { path: joinPath(prefix, segments), message: message(error) };
    const key = firstPerPath ? field.path : `${field.path}\n${field.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(field);
    if (result.length === MAX_FIELD_ERRORS) break;
  }
  return result;
}
