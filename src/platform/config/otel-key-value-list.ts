import { parseKeyPairsIntoRecord } from '@opentelemetry/core';
import { ValidateBy, type ValidationArguments } from 'class-validator';

/**
 * The `key=value,key2=value2` lists of the OpenTelemetry environment (W3C baggage format,
 * percent-encoded): OTEL_EXPORTER_OTLP_*HEADERS and OTEL_RESOURCE_ATTRIBUTES. The SDK drops an
 * entry it cannot read (and its resource detector the whole variable) with a diagnostic nobody
 * sees; here a list that is not entirely well-formed stops the start. Messages name the entry
 * by position only: a header list holds credentials, and a bad entry may be a piece of one.
 */
export type KeyValueListKind = 'headers' | 'attributes';

/** An HTTP header name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Characters Node refuses in a header value (controls other than tab). */
// eslint-disable-next-line no-control-regex
const BAD_HEADER_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]/;
/** The SDK's resource detector refuses longer keys and values. */
const MAX_ATTRIBUTE_LENGTH = 255;

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function entryProblem(entry: string, kind: KeyValueListKind): string | undefined {
  if (entry.includes(';')) return 'has an unencoded ; (write %3B)';
  const equals = entry.indexOf('=');
  if (equals <= 0) return 'is not name=value';
  const key = decoded(entry.slice(0, equals).trim());
  const value = decoded(entry.slice(equals + 1).trim());
  if (key === undefined || value === undefined) return 'has a malformed %-escape';
  if (key === '' || value === '') return 'has an empty name or value';
  if (kind === 'headers') {
    if (!TOKEN.test(key)) return 'has a name that is not a valid HTTP header name';
    if (BAD_HEADER_VALUE.test(value)) return 'has a control character in its value';
  } else {
    // The resource detector splits on every `=`: one inside a key or value must be encoded.
    if (entry.indexOf('=', equals + 1) !== -1) return 'has an unencoded = (write %3D)';
    if (key.length > MAX_ATTRIBUTE_LENGTH || value.length > MAX_ATTRIBUTE_LENGTH) {
      return `is longer than ${MAX_ATTRIBUTE_LENGTH} characters`;
    }
  }
  return undefined;
}

/** Why `list` is not a well-formed list, or undefined. Empty entries are skipped, as the SDK does. */
export function keyValueListProblem(list: string, kind: KeyValueListKind): string | undefined {
  const entries = list.split(',');
  for (let i = 0; i < entries.length; i++) {
    if (entries[i].trim() === '') continue;
    const problem = entryProblem(entries[i], kind);
    if (problem) return `entry ${i + 1} ${problem}`;
  }
  return undefined;
}

/** A well-formed list as a record, by the SDK's own parser; header names lower-cased. */
export function parseKeyValueList(
  list: string | undefined,
  kind: KeyValueListKind,
): Record<string, string> {
  const record = parseKeyPairsIntoRecord(list);
  if (kind === 'attributes') return record;
  return Object.fromEntries(Object.entries(record).map(([name, v]) => [name.toLowerCase(), v]));
}

const DESCRIPTION: Record<KeyValueListKind, string> = {
  headers: 'a comma-separated list of header=value pairs (values percent-encoded)',
  attributes: 'a comma-separated list of key=value pairs (percent-encoded)',
};

/** A `key=value,…` list of the given kind; the message says which entry is wrong, not what it holds. */
export const IsKeyValueList = (kind: KeyValueListKind) =>
  ValidateBy({
    name: 'isKeyValueList',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && keyValueListProblem(value, kind) === undefined,
      defaultMessage: (args?: ValidationArguments) => {
        const value: unknown = args?.value;
        const problem = typeof value === 'string' ? keyValueListProblem(value, kind) : undefined;
        return `must be ${DESCRIPTION[kind]}${problem ? `: ${problem}` : ''}`;
      },
    },
  });
