import { describe, expect, it } from '@jest/globals';
import { RE2JS } from 're2js';
import { ValidationBudgetExceeded, validationMeter } from './schema-budget.js';
import {
  MAX_PATTERN_PROGRAM,
  compileLinearPattern,
  limitDfaMemory,
  linearRegExp,
} from './schema-patterns.js';
import { PatternRefusal } from './schema-regex.js';

const UNICODE = { unicode: true };

describe('compileLinearPattern', () => {
  it('matches catastrophic patterns in linear time', () => {
    const started = performance.now();
    for (const [source, text] of [
      ['^(a+)+$', `${'a'.repeat(100_000)}!`],
      ['^(a|a)*$', `${'a'.repeat(100_000)}!`],
      ['(x+x+)+y', 'x'.repeat(100_000)],
      ['^(\\w+\\s?)*$', `${'word '.repeat(20_000)}!`],
    ]) {
      expect(compileLinearPattern(source, UNICODE).test(text)).toBe(false);
    }
    // JavaScript's engine would not finish the first of these before the universe ends.
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('charges the meter before matching, by input length and automaton size', () => {
    const pattern = compileLinearPattern('^[a-z]{1,64}$', UNICODE);
    expect(
      validationMeter.run({ budget: 100_000_000, maxErrors: 1 }, () => pattern.test('abc')),
    ).toBe(true);
    expect(() =>
      validationMeter.run({ budget: 1_000_000, maxErrors: 1 }, () =>
        pattern.test('a'.repeat(10_000)),
      ),
    ).toThrow(ValidationBudgetExceeded);
  });

  it(`refuses automata over ${MAX_PATTERN_PROGRAM} instructions`, () => {
    expect(() => compileLinearPattern('[a-z]{999}[0-9]{999}', UNICODE)).toThrow(PatternRefusal);
    expect(compileLinearPattern('^.{0,400}$', UNICODE).size).toBeLessThanOrEqual(
      MAX_PATTERN_PROGRAM,
    );
  });

  it('compiles a pattern again when the shared program cache has dropped it', () => {
    const kept = compileLinearPattern('^kept-[0-9]+$', UNICODE);
    for (let i = 0; i < 1100; i++) compileLinearPattern(`^filler-${i}$`, UNICODE);
    expect(kept.test('kept-42')).toBe(true);
    expect(kept.test('kept-x')).toBe(false);
  });

  it("caps each program's DFA memory (RE2JS's internals are where this expects them)", () => {
    const compiled = RE2JS.compile('[ab]*a[ab]{12}');
    limitDfaMemory(compiled, 4096);
    const dfa = (compiled.re2() as unknown as { dfa: { maxMem: number; memBudget: number } }).dfa;
    expect(dfa).toMatchObject({ maxMem: 4096 });
    expect(compiled.test(`${'ab'.repeat(50_000)}a${'b'.repeat(12)}`)).toBe(true);
    expect(dfa.memBudget).toBeLessThanOrEqual(4096);
  });
});

describe('linearRegExp (ajv code.regExp)', () => {
  it('names each pattern by its source and flags, as ajv keys them', () => {
    expect(String(linearRegExp('^a$', 'u'))).toBe('/^a$/u');
    expect(linearRegExp('^a$', 'u').test('a')).toBe(true);
    expect(() => linearRegExp('(?=a)', 'u')).toThrow(PatternRefusal);
  });
});
