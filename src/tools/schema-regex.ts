import { re2Property } from './schema-regex-properties.js';

/**
 * ECMAScript regular expressions (what JSON Schema's `pattern` means) rewritten for RE2, whose
 * automata match in time linear in the input. The rewrite keeps JavaScript's meaning where the
 * two syntaxes agree on spelling but not on sense (`.`, `\s`, `\S`, `[\b]`, `\0`, empty
 * classes) and refuses what RE2 cannot express: lookaround and backreferences.
 */

/** Why a pattern cannot be evaluated in linear time (or at all); reads after "pattern …". */
export class PatternRefusal extends Error {
  constructor(
    reason: string,
    /** The size of the automaton, when it was compiled but is too large. */
    readonly programSize?: number,
  ) {
    super(reason);
    this.name = 'PatternRefusal';
  }
}

/** A refusal of a construct RE2 has no linear-time way to match. */
const unsupported = (what: string) =>
  new PatternRefusal(`uses ${what}, which the linear-time pattern engine (RE2) does not support`);

export interface PatternFlags {
  /** `u`: code points, `\u{…}` and `\p{…}`; JSON Schema patterns are always compiled with it. */
  unicode: boolean;
  /** `i`; only ajv-formats' own expressions use it. */
  ignoreCase?: boolean;
}

type Range = readonly [number, number];

/** JavaScript's `\s`: WhiteSpace and LineTerminator (ECMA-262, CharacterClassEscape). */
export const JS_SPACE: readonly Range[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

const MAX_CODE_POINT = 0x10ffff;

function complement(ranges: readonly Range[]): Range[] {
  const result: Range[] = [];
  let next = 0;
  for (const [low, high] of ranges) {
    if (low > next) result.push([next, low - 1]);
    next = high + 1;
  }
  if (next <= MAX_CODE_POINT) result.push([next, MAX_CODE_POINT]);
  return result;
}

const hex = (codePoint: number) => `\\x{${codePoint.toString(16)}}`;
const rangeText = ([low, high]: Range) => (low === high ? hex(low) : `${hex(low)}-${hex(high)}`);
const rangesText = (ranges: readonly Range[]) => ranges.map(rangeText).join('');

const SPACE = rangesText(JS_SPACE);
const NOT_SPACE = rangesText(complement(JS_SPACE));
/** `.` without the `s` flag: anything but a line terminator. */
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

/** RE2's limit on `{n,m}` (also for nested repetitions, as a product). */
export const MAX_REPEAT = 1000;

const isHex = (text: string) => /^[0-9A-Fa-f]+$/.test(text);
const isAsciiLetter = (cp: number) => (cp | 0x20) >= 0x61 && (cp | 0x20) <= 0x7a;

/** One class member: a code point (ranges need them) or an escape RE2 spells itself. */
type ClassItem = { cp: number } | { text: string };

/** A left-to-right rewrite; the pattern has already been accepted by JavaScript's parser. */
class Rewriter {
  private i = 0;
  private out = '';

  constructor(
    private readonly source: string,
    private readonly flags: PatternFlags,
  ) {}

  run(): string {
    const { source } = this;
    while (this.i < source.length) {
      const ch = source[this.i];
      if (ch === '\\') this.escapeOutside();
      else if (ch === '[') this.characterClass();
      else if (ch === '(') this.group();
      else if (ch === '.') {
        this.out += DOT;
        this.i++;
      } else if (ch === '{') this.quantifier();
      else if ('^$|*+?)'.includes(ch)) {
        this.out += ch;
        this.i++;
      } else {
        const cp = source.codePointAt(this.i) ?? 0;
        this.literal(cp);
        this.i += cp > 0xffff ? 2 : 1;
      }
    }
    return this.flags.ignoreCase && this.flags.unicode ? `(?i)${this.out}` : this.out;
  }

  /** A literal code point; `i` without `u` folds ASCII letters only, as JavaScript does. */
  private literal(cp: number): void {
    if (this.flags.ignoreCase && !this.flags.unicode && isAsciiLetter(cp)) {
      this.out += `[${hex(cp | 0x20)}${hex(cp & ~0x20)}]`;
    } else {
      this.out += hex(cp);
    }
  }

  private group(): void {
    const rest = this.source.slice(this.i, this.i + 4);
    if (rest.startsWith('(?:')) {
      this.out += '(?:';
      this.i += 3;
    } else if (rest.startsWith('(?=') || rest.startsWith('(?!')) {
      throw unsupported(`lookahead "${rest.slice(0, 3)}…)"`);
    } else if (rest.startsWith('(?<=') || rest.startsWith('(?<!')) {
      throw unsupported(`lookbehind "${rest}…)"`);
    } else if (rest.startsWith('(?<')) {
      // The name only matters to backreferences, which are refused anyway.
      this.i = this.source.indexOf('>', this.i) + 1;
      this.out += '(';
    } else if (rest.startsWith('(?')) {
      throw unsupported('an inline modifier "(?…)"');
    } else {
      this.out += '(';
      this.i++;
    }
  }

  private quantifier(): void {
    const end = this.source.indexOf('}', this.i);
    const body = this.source.slice(this.i + 1, end);
    if (end < 0 || !/^\d+(,\d*)?$/.test(body)) {
      // Without the `u` flag a brace that starts no quantifier is a literal.
      this.literal(0x7b);
      this.i++;
      return;
    }
    for (const count of body.split(',')) {
      if (count !== '' && Number(count) > MAX_REPEAT) {
        throw unsupported(`a repetition count above ${MAX_REPEAT}`);
      }
    }
    this.out += `{${body}}`;
    this.i = end + 1;
  }

  /** The code point of `\x..`, `\u....` (a surrogate pair counts as one), `\u{…}` or `\cX`. */
  private escapedCodePoint(): number | undefined {
    const { source } = this;
    const kind = source[this.i + 1];
    if (kind === 'x' && isHex(source.slice(this.i + 2, this.i + 4))) {
      this.i += 4;
      return parseInt(source.slice(this.i - 2, this.i), 16);
    }
    if (kind === 'u' && source[this.i + 2] === '{' && this.flags.unicode) {
      const end = source.indexOf('}', this.i);
      const cp = parseInt(source.slice(this.i + 3, end), 16);
      this.i = end + 1;
      return cp;
    }
    if (kind === 'u' && isHex(source.slice(this.i + 2, this.i + 6))) {
      const unit = parseInt(source.slice(this.i + 2, this.i + 6), 16);
      this.i += 6;
      const low = source.slice(this.i, this.i + 6);
      if (this.flags.unicode && unit >= 0xd800 && unit <= 0xdbff && /^\\u[dD][c-fC-F]/.test(low)) {
        this.i += 6;
        return 0x10000 + ((unit - 0xd800) << 10) + (parseInt(low.slice(2), 16) - 0xdc00);
      }
      return unit;
    }
    if (kind === 'c' && /[A-Za-z]/.test(source[this.i + 2] ?? '')) {
      this.i += 3;
      return source.charCodeAt(this.i - 1) % 32;
    }
    if (kind === '0' && !/[0-9]/.test(source[this.i + 2] ?? '')) {
      this.i += 2;
      return 0;
    }
    const simple: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 };
    if (kind !== undefined && kind in simple) {
      this.i += 2;
      return simple[kind];
    }
    return undefined;
  }

  /** `\p{…}` / `\P{…}` at the cursor, rewritten. */
  private propertyEscape(): string {
    const negated = this.source[this.i + 1] === 'P';
    const end = this.source.indexOf('}', this.i);
    const body = this.source.slice(this.i + 3, end);
    this.i = end + 1;
    const re2 = re2Property(body, negated);
    if (re2 === undefined) throw unsupported(`the Unicode property "\\p{${body}}"`);
    return re2;
  }

  /** What `\d \D \w \W \s \S \p \P` or a refused escape means; undefined for other escapes. */
  private classEscape(inClass: boolean): string | undefined {
    const kind = this.source[this.i + 1];
    if (kind === 'd' || kind === 'D' || kind === 'w' || kind === 'W') {
      this.i += 2;
      return `\\${kind}`;
    }
    if (kind === 's' || kind === 'S') {
      this.i += 2;
      const ranges = kind === 's' ? SPACE : NOT_SPACE;
      return inClass ? ranges : `[${ranges}]`;
    }
    if ((kind === 'p' || kind === 'P') && this.flags.unicode) return this.propertyEscape();
    if (kind !== undefined && /[1-9]/.test(kind)) {
      throw unsupported(`a backreference "\\${kind}"`);
    }
    if (kind === 'k' && this.flags.unicode) {
      throw unsupported('a named backreference "\\k<…>"');
    }
    return undefined;
  }

  private escapeOutside(): void {
    const kind = this.source[this.i + 1];
    if (kind === 'b' || kind === 'B') {
      this.out += `\\${kind}`;
      this.i += 2;
      return;
    }
    const special = this.classEscape(false);
    if (special !== undefined) {
      this.out += special;
      return;
    }
    const cp = this.escapedCodePoint();
    if (cp !== undefined) {
      this.literal(cp);
      return;
    }
    // An identity escape: `\.`, `\/`, `\\`, … (or any character without the `u` flag).
    const escaped = this.source.codePointAt(this.i + 1) ?? 0;
    this.literal(escaped);
    this.i += escaped > 0xffff ? 3 : 2;
  }

  /** One class atom: a code point, or an escape that stands for a set. */
  private classAtom(): ClassItem {
    const { source } = this;
    if (source[this.i] === '\\') {
      if (source[this.i + 1] === 'b') {
        this.i += 2;
        return { cp: 8 }; // backspace inside a class
      }
      if (source[this.i + 1] === '-') {
        this.i += 2;
        return { cp: 0x2d };
      }
      const special = this.classEscape(true);
      if (special !== undefined) return { text: special };
      const cp = this.escapedCodePoint();
      if (cp !== undefined) return { cp };
      const escaped = source.codePointAt(this.i + 1) ?? 0;
      this.i += escaped > 0xffff ? 3 : 2;
      return { cp: escaped };
    }
    const cp = source.codePointAt(this.i) ?? 0;
    this.i += cp > 0xffff ? 2 : 1;
    return { cp };
  }

  private characterClass(): void {
    const { source } = this;
    this.i++;
    const negated = source[this.i] === '^';
    if (negated) this.i++;
    const items: Array<ClassItem | Range> = [];
    while (source[this.i] !== ']') {
      const atom = this.classAtom();
      const isRange =
        'cp' in atom &&
        source[this.i] === '-' &&
        source[this.i + 1] !== ']' &&
        this.i + 1 < source.length;
      if (!isRange) {
        items.push(atom);
        continue;
      }
      const save = this.i;
      this.i++;
      const high = this.classAtom();
      if ('cp' in high) {
        items.push([atom.cp, high.cp]);
      } else {
        // `[a-\d]` is a syntax error with `u`; without it the `-` is literal.
        this.i = save;
        items.push(atom);
      }
    }
    this.i++;
    this.out += this.classText(items, negated);
  }

  private classText(items: ReadonlyArray<ClassItem | Range>, negated: boolean): string {
    if (items.length === 0) {
      // `[]` matches nothing and `[^]` anything; RE2 has no spelling for either.
      return negated ? '[\\x00-\\x{10ffff}]' : '[^\\x00-\\x{10ffff}]';
    }
    const fold = this.flags.ignoreCase && !this.flags.unicode;
    let text = '';
    for (const item of items) {
      if (Array.isArray(item)) {
        const range = item as Range;
        text += rangeText(range);
        if (fold) text += rangesText(foldedAscii(range));
      } else if ('cp' in item) {
        const { cp } = item;
        text += hex(cp);
        if (fold && isAsciiLetter(cp)) text += hex(cp ^ 0x20);
      } else {
        text += (item as { text: string }).text;
      }
    }
    return `[${negated ? '^' : ''}${text}]`;
  }
}

/** The other case of the ASCII letters inside a range. */
function foldedAscii([low, high]: Range): Range[] {
  const result: Range[] = [];
  for (const [from, to, shift] of [
    [0x41, 0x5a, 0x20],
    [0x61, 0x7a, -0x20],
  ] as const) {
    const start = Math.max(low, from);
    const end = Math.min(high, to);
    if (start <= end) result.push([start + shift, end + shift]);
  }
  return result;
}

/**
 * The RE2 spelling of an ECMAScript pattern with the same meaning. Throws PatternRefusal for a
 * pattern JavaScript rejects or RE2 cannot express.
 */
export function toRe2Syntax(source: string, flags: PatternFlags): string {
  try {
    new RegExp(source, `${flags.unicode ? 'u' : ''}${flags.ignoreCase ? 'i' : ''}`);
  } catch (error) {
    throw new PatternRefusal(`is not a valid regular expression: ${(error as Error).message}`);
  }
  return new Rewriter(source, flags).run();
}
