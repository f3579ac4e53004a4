import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { JS_SPACE, PatternRefusal, toRe2Syntax } from './schema-regex.js';

const re2 = (source: string, ignoreCase = false, unicode = true) =>
  RE2JS.compile(toRe2Syntax(source, { unicode, ignoreCase }));

/** Whether RE2 and JavaScript agree on every text. */
function agree(source: string, texts: readonly string[], flags = 'u'): void {
  const native = new RegExp(source, flags);
  const linear = re2(source, flags.includes('i'), flags.includes('u'));
  for (const text of texts) {
    expect({ source, text, matches: linear.test(text) }).toEqual({
      source,
      text,
      matches: native.test(text),
    });
  }
}

const TEXTS = [
  '',
  'a',
  'abc',
  'ABC',
  'a\nb',
  'a\rb',
  'a\u2028b',
  '\u00a0',
  ' \t',
  '\ufeff',
  'é',
  '😀',
  'x😀y',
  '\u0000',
  '\b',
  'a-b_c',
  '123',
  'aaaa!',
];

describe('toRe2Syntax keeps the meaning JavaScript gives a pattern', () => {
  it('for the spellings that differ between the two engines', () => {
    for (const source of [
      '^.$',
      '^a.b$',
      '\\s',
      '^\\s*$',
      '\\S',
      '^[\\s\\S]+$',
      '^[^\\s]+$',
      '[\\b]',
      '\\0',
      '^[]$',
      '^[^]$',
      '[^a]',
      'a$',
      '^\\u{1F600}$',
      '^\\uD83D\\uDE00$',
      '^\\x41',
      '\\cJ',
      '^[😀-😂]$',
      '\\bb',
      '\\Bb',
      '^[\\w-]+$',
      '^(?<name>a)b',
      '\\p{L}',
      '^\\P{Lu}+$',
      '\\p{Script=Greek}',
      '\\p{Letter}',
      '^\\p{ASCII}+$',
      '[\\-a]',
      '^a{2,3}$',
      '^(?:ab|a)+?$',
      '\\/',
      '[\\^\\]]',
    ]) {
      agree(source, TEXTS);
    }
  });

  it('with the i flag, folding ASCII letters only when there is no u flag', () => {
    agree('^[a-f0-9]+$', ['ABC', 'abc', 'ſ', 'K'], 'i');
    agree('^k$', ['k', 'K', 'K'], 'i');
    agree('^[^a-z]$', ['A', 'a', '1'], 'i');
    agree('^k$', ['k', 'K', 'K'], 'iu');
  });

  it('JS_SPACE is exactly what \\s matches', () => {
    const space = /\s/u;
    for (let cp = 0; cp <= 0xffff; cp++) {
      const listed = JS_SPACE.some(([low, high]) => cp >= low && cp <= high);
      if (listed !== space.test(String.fromCodePoint(cp))) throw new Error(`differs at ${cp}`);
    }
  });

  it('on random patterns and texts (property)', () => {
    const atom = fc.oneof(
      fc.constantFrom('a', 'b', 'é', '😀', '.', '\\s', '\\S', '\\d', '\\w', '\\W', '\\.', '-'),
      fc.constantFrom('[ab]', '[^a]', '[a-c\\s]', '[^\\S\\n]', '[\\b]', '\\u{61}', '\\x62', '\\n'),
    );
    const quantified = fc
      .tuple(atom, fc.constantFrom('', '*', '+', '?', '{2}', '{1,3}', '*?', '+?'))
      .map(([a, q]) => a + q);
    const sequence = fc.array(quantified, { minLength: 1, maxLength: 5 }).map((s) => s.join(''));
    const pattern = fc
      .tuple(
        fc.constantFrom('', '^'),
        fc.array(sequence, { minLength: 1, maxLength: 3 }),
        fc.constantFrom('', '$'),
        fc.boolean(),
      )
      .map(([start, alternatives, end, group]) => {
        const body = alternatives.join('|');
        return `${start}${group ? `(?:${body})` : body}${end}`;
      });
    const text = fc
      .array(fc.constantFrom('a', 'b', 'c', 'é', '😀', ' ', '\n', '\r', '\u00a0', '1', '-', '.'), {
        maxLength: 8,
      })
      .map((chars) => chars.join(''));
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 8 }), (source, texts) => {
        agree(source, texts);
      }),
      { numRuns: 300 },
    );
  });
});

describe('toRe2Syntax refuses what RE2 cannot evaluate in linear time', () => {
  const refusal = (source: string) => {
    try {
      toRe2Syntax(source, { unicode: true });
    } catch (error) {
      if (error instanceof PatternRefusal) return error.message;
      throw error;
    }
    return undefined;
  };

  it('names the construct', () => {
    expect(refusal('^(?=a)b')).toMatch(/^uses lookahead "\(\?=…\)", which the linear-time/);
    expect(refusal('a(?!b)')).toMatch(/^uses lookahead "\(\?!…\)"/);
    expect(refusal('(?<=a)b')).toMatch(/^uses lookbehind/);
    expect(refusal('(?<!a)b')).toMatch(/^uses lookbehind/);
    expect(refusal('(a)\\1')).toMatch(/^uses a backreference "\\1"/);
    expect(refusal('(?<x>a)\\k<x>')).toMatch(/^uses a named backreference/);
    expect(refusal('a{1001}')).toMatch(/^uses a repetition count above 1000/);
    expect(refusal('\\p{Script_Extensions=Greek}')).toMatch(/^uses the Unicode property/);
  });

  it('and what JavaScript itself rejects', () => {
    expect(refusal('(')).toMatch(/^is not a valid regular expression: /);
    expect(refusal('\\A')).toMatch(/^is not a valid regular expression: /);
  });

  it('but takes nested quantifiers, which RE2 matches in linear time', () => {
    expect(refusal('^(a+)+$')).toBeUndefined();
    expect(refusal('^(a|a)*$')).toBeUndefined();
    expect(refusal('(x+x+)+y')).toBeUndefined();
  });
});
