import type { FieldError } from '../../platform/http/problem.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import {
  HEADER_NAME_PATTERN,
  MAX_UPSTREAM_HEADER_VALUE,
  MAX_UPSTREAM_HEADERS,
  RESERVED_HEADERS,
} from './upstream.limits.js';

/** Control characters other than tab: CR and LF would split the request. */
function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

/**
 * The headers of an upstream registration (or of an A2A agent tool's endpoint: its own
 * `reserved` names and field `at`), or the field errors that refuse it. Values are never quoted
 * in an error: they are secrets.
 */
export function checkHeaders(
  headers: { [name: string]: JsonValue } | undefined,
  reserved: ReadonlySet<string> = RESERVED_HEADERS,
  at = 'headers',
): {
  headers: { [name: string]: string };
  errors: FieldError[];
} {
  const checked: { [name: string]: string } = {};
  const errors: FieldError[] = [];
  const entries = Object.entries(headers ?? {});
  if (entries.length > MAX_UPSTREAM_HEADERS) {
    errors.push({ path: at, message: `at most ${MAX_UPSTREAM_HEADERS} headers` });
    return { headers: checked, errors };
  }
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    const path = `${at}.${name}`;
    const lower = name.toLowerCase();
    if (!HEADER_NAME_PATTERN.test(name)) {
      errors.push({ path, message: 'is not an HTTP header name (1 to 64 token characters)' });
    } else if (reserved.has(lower)) {
      errors.push({ path, message: 'is set by the gateway or the protocol itself' });
    } else if (seen.has(lower)) {
      errors.push({ path, message: 'is given twice (header names ignore case)' });
    } else if (typeof value !== 'string') {
      errors.push({ path, message: 'must be a string' });
    } else if (value.length > MAX_UPSTREAM_HEADER_VALUE || hasControl(value)) {
      errors.push({
        path,
        message: `must be at most ${MAX_UPSTREAM_HEADER_VALUE} characters without control characters`,
      });
    } else {
      checked[name] = value;
    }
    seen.add(lower);
  }
  return { headers: checked, errors };
}
