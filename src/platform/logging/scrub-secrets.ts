import { secretSpellings } from './secret-spellings.js';

/** `scheme://user:password@` and `scheme://user@` credentials inside URLs. */
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;
/** `Bearer <token>` as quoted in an error message or an echoed header. */
const BEARER = /\b(Bearer\s+)[^\s"',]+/gi;
/** `Basic <base64 of user:password>`. */
const BASIC = /\b(Basic\s+)[A-Za-z0-9+/=_-]{8,}/g;
/** Query parameters that carry credentials (`?api_key=`, `&sig=`, `token=`, `password=`). */
const CREDENTIAL_PARAMS =
  /([?&;](?:[a-z0-9_.-]*(?:key|token|secret|passw(?:or)?d|sig|signature|auth)[a-z0-9_.-]*)=)[^&\s"'#]+/gi;
/** Cheap test for the patterns above, so most log lines skip them. */
const HINT = /:\/\/[^\s"]*@|bearer|basic|[?&;][a-z0-9_.-]*(key|token|secret|pass|sig|auth)/i;

/** Removes credentials that driver, HTTP and upstream messages may quote (no known secret needed). */
export function scrubSecrets(text: string): string {
  if (!HINT.test(text)) return text;
  return text
    .replace(URL_CREDENTIALS, '$1***@')
    .replace(BEARER, '$1***')
    .replace(BASIC, '$1***')
    .replace(CREDENTIAL_PARAMS, '$1***');
}

/**
 * The shortest piece of a secret recognised on its own. An echo cut mid-key (by the upstream or
 * by a length limit) leaves a prefix; any run of this many characters of any spelling of a
 * secret is removed, so no such piece survives. Shorter secrets are matched whole.
 */
export const MIN_FRAGMENT = 8;
/** Shorter values are not treated as secrets: removing every `abc` would garble text. */
const MIN_SECRET = 4;

/** ASCII-only lower case keeps every index where it was (`toLowerCase` may not). */
const lower = (text: string) =>
  text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
const lowerCode = (code: number) => (code >= 65 && code <= 90 ? code + 32 : code);

/** Rolling hash of MIN_FRAGMENT lower-cased characters (mod 2^32), so a scan costs O(length). */
const BASE = 257;
let outgoing = 1;
for (let i = 1; i < MIN_FRAGMENT; i++) outgoing = Math.imul(outgoing, BASE);
/** BASE^(MIN_FRAGMENT-1): the weight of the character leaving the window. */
const OUTGOING_WEIGHT = outgoing;

/** 65,536 slots: a few secrets mark a few percent of them, so few positions need a look. */
const SLOTS = 1 << 16;
const slotOf = (hash: number) => (hash ^ (hash >>> 16)) & (SLOTS - 1);

function windowHash(text: string, start: number): number {
  let hash = 0;
  for (let i = start; i < start + MIN_FRAGMENT; i++) {
    hash = (Math.imul(hash, BASE) + lowerCode(text.charCodeAt(i))) | 0;
  }
  return hash;
}

/**
 * Removes known secrets (API keys, signing secrets, secret webhook paths) in every spelling
 * `secretSpellings` knows, in any letter case, and any piece of MIN_FRAGMENT characters of
 * them, then what `scrubSecrets` removes. A removed run becomes `***`.
 */
export class SecretScrubber {
  /** Every MIN_FRAGMENT-character window of every spelling, lower-cased. */
  private readonly windows = new Set<string>();
  /** A window's hash marks its slot; the scan confirms a marked slot against `windows`. */
  private readonly slots = new Uint8Array(SLOTS);
  /** Spellings shorter than MIN_FRAGMENT, lower-cased, matched whole. */
  private readonly short = new Set<string>();

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const secret of secrets) this.add(secret);
  }

  add(secret: string | undefined): void {
    if (secret === undefined || secret.length < MIN_SECRET) return;
    for (const spelling of secretSpellings(secret).map(lower)) {
      if (spelling.length < MIN_FRAGMENT) {
        if (spelling.length >= MIN_SECRET) this.short.add(spelling);
        continue;
      }
      for (let i = 0; i + MIN_FRAGMENT <= spelling.length; i++) {
        this.windows.add(spelling.slice(i, i + MIN_FRAGMENT));
        this.slots[slotOf(windowHash(spelling, i))] = 1;
      }
    }
  }

  get empty(): boolean {
    return this.windows.size === 0 && this.short.size === 0;
  }

  /** `text` with every known secret and credential pattern replaced by `***`. */
  scrub(text: string): string {
    return scrubSecrets(this.scrubKnown(text));
  }

  /** True when `text` holds a piece of a known secret or a credential pattern. */
  finds(text: string): boolean {
    return this.holds(text) || HINT.test(text);
  }

  /** True when `text` holds a piece of a known secret. */
  holds(text: string): boolean {
    return this.ranges(text).length > 0;
  }

  /** `text` with the known secrets only replaced by `***` (for text that may mention `Bearer`). */
  scrubKnown(text: string): string {
    const ranges = this.ranges(text);
    if (ranges.length === 0) return text;
    let out = '';
    let at = 0;
    for (const [start, end] of ranges) {
      out += `${text.slice(at, start)}***`;
      at = end;
    }
    return out + text.slice(at);
  }

  /** Merged [start, end) ranges of `text` covered by known secrets, in order. */
  private ranges(text: string): Array<[number, number]> {
    if (this.empty || text.length < MIN_SECRET) return [];
    const hits: Array<[number, number]> = [];
    if (this.windows.size > 0 && text.length >= MIN_FRAGMENT) {
      let hash = windowHash(text, 0);
      for (let i = 0; ; i++) {
        // A marked slot is confirmed on the text itself (hashes collide).
        if (
          this.slots[slotOf(hash)] === 1 &&
          this.windows.has(lower(text.slice(i, i + MIN_FRAGMENT)))
        ) {
          hits.push([i, i + MIN_FRAGMENT]);
        }
        if (i + MIN_FRAGMENT >= text.length) break;
        const out = Math.imul(lowerCode(text.charCodeAt(i)), OUTGOING_WEIGHT);
        const next = lowerCode(text.charCodeAt(i + MIN_FRAGMENT));
        hash = (Math.imul((hash - out) | 0, BASE) + next) | 0;
      }
    }
    if (this.short.size > 0) {
      const folded = lower(text);
      for (const spelling of this.short) {
        for (let i = folded.indexOf(spelling); i !== -1; i = folded.indexOf(spelling, i + 1)) {
          hits.push([i, i + spelling.length]);
        }
      }
    }
    hits.sort((a, b) => a[0] - b[0]);
    const merged: Array<[number, number]> = [];
    for (const [start, end] of hits) {
      const last = merged.at(-1);
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else merged.push([start, end]);
    }
    return merged;
  }
}

/** A parsed JSON value with `scrub` applied to every string in it, object keys included. */
export function scrubJsonValue(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubJsonValue(item, scrub));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[scrub(key)] = scrubJsonValue(item, scrub);
    }
    return out;
  }
  return value;
}

/**
 * Scrubs one serialized JSON log line. The line is searched as written (the spellings include
 * JSON-escaped ones), and only a line with a find is parsed, scrubbed value by value and
 * written again, so a replacement can never break an escape sequence or the JSON.
 */
export function scrubJsonLine(line: string, scrubber: SecretScrubber): string {
  if (!scrubber.finds(line)) return line;
  const newline = line.endsWith('\n') ? '\n' : '';
  try {
    const parsed: unknown = JSON.parse(line);
    return JSON.stringify(scrubJsonValue(parsed, (text) => scrubber.scrub(text))) + newline;
  } catch {
    return scrubber.scrub(line);
  }
}

/**
 * The secrets of every gateway configured in this process, for its log lines. nestjs-pino keeps
 * one logger per process (the first app's), so the secrets live beside it: in production one
 * app registers its configuration; tests start many apps and each adds its own.
 */
export const LOG_SECRETS = new SecretScrubber();
