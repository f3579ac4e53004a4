import { ProblemException } from './problem.js';

/**
 * How deeply JSON may nest in a request (SVC_MAX_JSON_DEPTH): `{}` and `[]` are depth 1. Real
 * payloads stay far below it; a deeper one is refused before anything walks it recursively
 * (class-transformer, JSON.stringify, pino), since those overflow the stack on a few thousand
 * levels. Both checks below loop with their own counters, so no input can overflow them.
 */
export const DEFAULT_MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON text nests deeper than `maxDepth`, read from its UTF-8 bytes before parsing
 * (a byte of a multi-byte character is never below 0x80, so brackets and quotes are exact).
 * Malformed text is left for the parser to refuse.
 */
export function jsonTextTooDeep(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/**
 * Whether a parsed value nests deeper than `maxDepth` (for a body some other middleware parsed;
 * JSON has no cycles, and a value that has them counts as deep).
 */
export function valueTooDeep(value: unknown, maxDepth: number): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const current = next.value;
    if (current === null || typeof current !== 'object') continue;
    if (next.depth > maxDepth) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children as unknown[]) {
      if (child !== null && typeof child === 'object') {
        pending.push({ value: child, depth: next.depth + 1 });
      }
    }
  }
  return false;
}

/** The 400 for a payload nested deeper than allowed, on every JSON surface but MCP. */
export function tooDeep(maxDepth: number): ProblemException {
  return new ProblemException(
    400,
    `the JSON is nested deeper than ${maxDepth} levels`,
    'json-too-deep',
  );
}
