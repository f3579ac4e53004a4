import { ProblemException } from '../platform/http/problem.js';
import type { JsonValue } from '../platform/state/state-store.js';

/**
 * How much text resolving the references of one step (its prompt or its arguments) may produce.
 * A reference is short and what it stands for may be large (a step output, the run's input), so
 * a spec repeating one could otherwise expand to gigabytes.
 */
export const MAX_RESOLVED_CHARS = 1024 * 1024;

/** The references of a step stand for more than MAX_RESOLVED_CHARS: the step fails, nothing runs. */
export class ResolvedReferencesTooLarge extends ProblemException {
  constructor(limit: number) {
    super(
      400,
      `the step's references resolve to more than ${limit} characters; refer to less, or to a field of an output`,
      'references-too-large',
    );
  }
}

/**
 * `{{input}}` (the run's input text) and `{{steps.<id>.output}}` (a step's output, optionally
 * followed by `.field` names to pick a part of an object output). Step ids may hold dots, so the
 * id is everything up to the last `.output`.
 */
const REFERENCE = /\{\{\s*(input|steps\.([A-Za-z0-9_.-]+?)\.output((?:\.[A-Za-z0-9_-]+)*))\s*\}\}/g;
const WHOLE = new RegExp(`^${REFERENCE.source}$`);

export interface ReferenceValues {
  input: string;
  /** A step's output, or undefined when the step has not produced one. */
  output(stepId: string): JsonValue | undefined;
}

function walk(value: JsonValue | undefined, visit: (text: string) => JsonValue): JsonValue {
  if (typeof value === 'string') return visit(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, visit));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, visit)]));
  }
  return value ?? null;
}

/** The ids of the steps a value refers to, in order of appearance. */
export function referencedSteps(value: JsonValue | undefined): string[] {
  const ids: string[] = [];
  walk(value, (text) => {
    for (const match of text.matchAll(REFERENCE)) if (match[2] !== undefined) ids.push(match[2]);
    return text;
  });
  return ids;
}

function pick(value: JsonValue | undefined, path: string): JsonValue | undefined {
  let current = value;
  for (const field of path.split('.').filter(Boolean)) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = current[field];
  }
  return current;
}

function lookup(values: ReferenceValues, match: RegExpExecArray | RegExpMatchArray): JsonValue {
  if (match[1] === 'input') return values.input;
  return pick(values.output(match[2] ?? ''), match[3] ?? '') ?? null;
}

const asText = (value: JsonValue): string =>
  typeof value === 'string' ? value : JSON.stringify(value);

/**
 * Replaces references in strings, anywhere inside the value. A string that is one reference and
 * nothing else takes the referred value as it is (an object stays an object); a reference inside
 * longer text is replaced by its text (JSON for non-strings).
 */
export function resolveReferences(
  value: JsonValue | undefined,
  values: ReferenceValues,
  limit = MAX_RESOLVED_CHARS,
): JsonValue {
  let produced = 0;
  // Counted as it goes and thrown from inside the replacement, so the work stops at the limit.
  const spend = (size: number) => {
    produced += size;
    if (produced > limit) throw new ResolvedReferencesTooLarge(limit);
  };
  return walk(value, (text) => {
    const whole = WHOLE.exec(text);
    if (whole) {
      const found = lookup(values, whole);
      spend(asText(found).length);
      return found;
    }
    return text.replace(REFERENCE, (...match: string[]) => {
      const found = asText(lookup(values, match as unknown as RegExpMatchArray));
      spend(found.length);
      return found;
    });
  });
}
