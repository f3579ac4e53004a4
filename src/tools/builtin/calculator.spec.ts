import { describe, expect, it } from '@jest/globals';
import { MAX_EXPRESSION_LENGTH, calculate } from './calculator.js';

const value = (expression: string) => calculate(expression);

describe('calculate', () => {
  it.each([
    ['2*(3+4)', 14],
    ['2+3*4', 14],
    ['(2+3)*4', 20],
    ['10-4-3', 3],
    ['12/4/3', 1],
    ['7 % 4', 3],
    ['2**3**2', 512],
    ['-2**2', 4],
    ['-(2+3)', -5],
    ['+4 - -2', 6],
    ['--3', 3],
    ['1.5e3 / .5', 3000],
    ['sqrt(16) + abs(-2)', 6],
    ['min(3, 1, 2) + max(4, 9)', 10],
    ['round(2.5) + floor(2.9) + ceil(2.1)', 8],
    ['pi', Math.PI],
    ['e', Math.E],
    ['0 * -1', 0],
  ])('%s = %d', (expression, expected) => {
    expect(value(expression)).toEqual({ ok: true, value: expected });
  });

  it('reports division and modulo by zero as errors', () => {
    expect(value('1/0')).toEqual({ ok: false, error: 'division by zero' });
    expect(value('5 % (2-2)')).toEqual({ ok: false, error: 'division by zero' });
  });

  it('reports non-finite results as errors', () => {
    expect(value('10**400')).toEqual({ ok: false, error: 'the result is not a finite number' });
    expect(value('sqrt(-1)')).toMatchObject({ ok: false });
  });

  it('reports syntax errors', () => {
    for (const expression of ['1 +', '((1)', '2 3', '0x10']) {
      const outcome = value(expression);
      expect(outcome.ok).toBe(false);
    }
    expect(value('1 +')).toMatchObject({ error: expect.stringMatching(/^syntax error: /) });
    expect(value('   ')).toEqual({ ok: false, error: 'the expression is empty' });
  });

  it.each([
    'process.exit()',
    'constructor',
    '__proto__',
    'toString()',
    'Math.sqrt(4)',
    'sqrt.constructor',
    '"a"',
    "'1' + 1",
    'x',
    '[1, 2]',
    'this',
    '1 ? 2 : 3',
    '1 < 2',
    '1 & 3',
    '!1',
    'sqrt(4)(1)',
    'eval("1")',
    'Function("return 1")()',
  ])('refuses %s as an unsupported expression', (expression) => {
    expect(value(expression)).toEqual({
      ok: false,
      error: expect.stringMatching(/^(unsupported expression|syntax error)/),
    });
  });

  it('names the unsupported part and suggests ** for ^', () => {
    expect(value('process.exit()')).toEqual({
      ok: false,
      error: 'unsupported expression: only sqrt, abs, round, floor, ceil, min, max can be called',
    });
    expect(value('constructor')).toEqual({
      ok: false,
      error: 'unsupported expression: unknown name "constructor"',
    });
    expect(value('2 ^ 3')).toEqual({
      ok: false,
      error: 'unsupported expression: operator ^ (use ** for powers)',
    });
  });

  it('checks function arity', () => {
    expect(value('sqrt(1, 2)')).toEqual({ ok: false, error: 'sqrt takes one argument' });
    expect(value('max()')).toEqual({ ok: false, error: 'max takes at least one argument' });
    expect(value('log(2)')).toEqual({
      ok: false,
      error: expect.stringContaining('unknown function "log"'),
    });
  });

  it('bounds the expression length and survives deep nesting', () => {
    expect(value('1+'.repeat(MAX_EXPRESSION_LENGTH) + '1')).toMatchObject({
      ok: false,
      error: expect.stringContaining('longer than'),
    });
    const nested = '('.repeat(499) + '1' + ')'.repeat(499);
    expect(value(nested)).toEqual({ ok: true, value: 1 });
    expect(value('-'.repeat(999) + '1')).toEqual({ ok: true, value: -1 });
  });
});
