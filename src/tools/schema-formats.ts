import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { FormatDefinition } from 'ajv';
import { validationMeter } from './schema-budget.js';
import { type LinearPattern, compileTrustedPattern } from './schema-patterns.js';

/**
 * ajv-formats' string formats, evaluated in linear time. Its regular expressions are matched by
 * RE2 instead of JavaScript's backtracking engine (ajv's own documentation warns that some of
 * them are open to ReDoS; `url` takes quadratic time on `http://` followed by colons). Three of
 * them use lookaround, which RE2 lacks; they are rewritten below with the same meaning. The
 * function formats (dates and times, `byte`, `regex`) use anchored expressions without nested
 * quantifiers, and are kept with a charge per character.
 */

/** Units per character for the function formats. */
const FUNCTION_CHAR_UNITS = 20;

type StringCheck = (text: string) => boolean;

/** One of ajv-formats' expressions for RE2, with its flags. */
function linear(source: string, flags: string): LinearPattern {
  return compileTrustedPattern(source, {
    unicode: flags.includes('u'),
    ignoreCase: flags.includes('i'),
  });
}

/** `source` with `part` replaced; fails loudly if an ajv-formats upgrade changed the source. */
function replaced(source: string, part: string, replacement: string): string {
  if (!source.includes(part)) {
    throw new Error(`ajv-formats changed: "${part}" is no longer in ${source}`);
  }
  return source.replace(part, replacement);
}

/** ajv-formats' private `URI` expression (the `uri` format also requires a "/" or ":"). */
const URI_SOURCE =
  String.raw`^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(` +
  String.raw`?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){` +
  String.raw`4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){` +
  String.raw`0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9` +
  String.raw`a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(` +
  String.raw`?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:)` +
  String.raw`{0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a` +
  String.raw`-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0` +
  String.raw`-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~` +
  String.raw`!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[` +
  String.raw`a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(` +
  String.raw`?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[` +
  String.raw`0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$`;

const OCTET = String.raw`(?:1?\d{1,2}|2[0-4]\d|25[0-5])`;
const LAST_OCTET = String.raw`(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4])`;
/**
 * The dotted-quad branch of `url` without its three negative lookaheads, which refuse 10/8,
 * 127/8, 169.254/16, 192.168/16 and 172.16/12: the first two octets spelled out instead.
 */
const PUBLIC_IPV4 = [
  String.raw`(?:[1-9]|1[1-9]|[2-9]\d|1[01]\d|12[0-689]|1[3-58]\d|16[0-8]|17[013-9]|19[013-9]|2[01]\d|22[0-3])\.${OCTET}`,
  String.raw`169\.(?:1?\d{1,2}|2[0-4]\d|25[0-35])`,
  String.raw`192\.(?:\d{1,2}|1(?:[0-57-9]\d|6[0-79])|2[0-4]\d|25[0-5])`,
  String.raw`172\.(?:\d|0\d|1[0-5]|3[2-9]|[4-9]\d|1\d\d|2[0-4]\d|25[0-5])`,
]
  .map((head) => `${head}\\.${OCTET}\\.${LAST_OCTET}`)
  .join('|');
const URL_IPV4 =
  String.raw`(?!(?:10|127)(?:\.\d{1,3}){3})(?!(?:169\.254|192\.168)(?:\.\d{1,3}){2})(?!172\.(?:1[6-9]|2\d|3[0-1])(?:\.\d{1,3}){2})` +
  String.raw`(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])(?:\.(?:1?\d{1,2}|2[0-4]\d|25[0-5])){2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))`;

function regexpFormat(regexp: RegExp): StringCheck {
  const pattern = linear(regexp.source, regexp.flags);
  return (text) => pattern.test(text);
}

function uriFormat(): StringCheck {
  const pattern = linear(URI_SOURCE, 'i');
  return (text) => (text.includes('/') || text.includes(':')) && pattern.test(text);
}

/** `(?=.{1,253}\.?$)`: at most 253 characters, or 254 ending in a dot. */
function hostnameFormat(): StringCheck {
  const { source, flags } = fullFormats.hostname as RegExp;
  const pattern = linear(replaced(source, String.raw`(?=.{1,253}\.?$)`, ''), flags);
  return (text) =>
    (text.length <= 253 || (text.length === 254 && text.endsWith('.'))) && pattern.test(text);
}

/** `P(?!$)`: more than the P; `T(?=\d)`: a digit after the T (there is at most one). */
function durationFormat(): StringCheck {
  const { source, flags } = fullFormats.duration as RegExp;
  const pattern = linear(replaced(replaced(source, '(?!$)', ''), String.raw`(?=\d)`, ''), flags);
  return (text) => {
    if (text.length < 2 || !pattern.test(text)) return false;
    const t = text.indexOf('T');
    return t < 0 || (text.charCodeAt(t + 1) >= 0x30 && text.charCodeAt(t + 1) <= 0x39);
  };
}

function urlFormat(): StringCheck {
  const { source, flags } = fullFormats.url as RegExp;
  const pattern = linear(replaced(source, URL_IPV4, `(?:${PUBLIC_IPV4})`), flags);
  return (text) => pattern.test(text);
}

function metered(check: (text: string) => boolean): StringCheck {
  return (text) => {
    validationMeter.spend(1000 + FUNCTION_CHAR_UNITS * text.length);
    return check(text);
  };
}

/** ajv-formats' definition of a format: an expression, a function, a definition or `true`. */
type FormatValue = unknown;

/** The check of a function format, as ajv-formats defines it. */
function functionCheck(value: FormatValue): StringCheck {
  if (typeof value === 'function') return value as StringCheck;
  return (value as { validate: StringCheck }).validate;
}

/** How each string format is built; the RE2 ones take milliseconds, so each is built once, when first needed. */
function builders(): Map<string, () => StringCheck> {
  const result = new Map<string, () => StringCheck>([
    ['uri', uriFormat],
    ['hostname', hostnameFormat],
    ['duration', durationFormat],
    ['url', urlFormat],
  ]);
  for (const [name, value] of Object.entries(fullFormats)) {
    if (result.has(name)) continue;
    if (value instanceof RegExp) result.set(name, () => regexpFormat(value));
    else if (name === 'date' || name.includes('time') || name === 'byte' || name === 'regex') {
      result.set(name, () => metered(functionCheck(value)));
    }
  }
  return result;
}

const BUILDERS = builders();
const built = new Map<string, StringCheck>();

function check(name: string): StringCheck | undefined {
  let found = built.get(name);
  if (!found) {
    const build = BUILDERS.get(name);
    if (!build) return undefined;
    found = build();
    built.set(name, found);
  }
  return found;
}

/**
 * Builds a format's check ahead of validation (schema-instrument.ts calls it for every
 * `format` a schema names), so the first validation does not pay for it.
 */
export function prepareFormat(name: string): void {
  check(name);
}

/**
 * The string formats to add over ajv-formats' own (same names, same `compare` for the
 * formatMinimum/formatMaximum keywords). Number formats and `password`/`binary` stay as they
 * are: they cost nothing.
 */
export function linearStringFormats(): Array<[string, FormatDefinition<string>]> {
  return [...BUILDERS.keys()].map((name) => {
    const original = (fullFormats as Record<string, FormatValue>)[name];
    const compare = (original as { compare?: FormatDefinition<string>['compare'] }).compare;
    const validate = (text: string) => (check(name) as StringCheck)(text);
    return [name, { type: 'string', validate, ...(compare ? { compare } : {}) }];
  });
}
