import { describe, expect, it } from '@jest/globals';
import { FunctionNames } from './function-names.js';

describe('FunctionNames', () => {
  it('sends a name the API accepts as it is', () => {
    const names = new FunctionNames(['calculator', 'board_create-card']);
    expect(names.wire('calculator')).toBe('calculator');
    expect(names.original('board_create-card')).toBe('board_create-card');
  });

  it('gives a dotted or long name a stable alias that fits, and maps it back', () => {
    const long = `orders.lookup.${'x'.repeat(114)}`;
    const names = new FunctionNames(['a.b', long]);
    const dotted = names.wire('a.b');
    expect(dotted).toMatch(/^a_b_[0-9a-f]{8}$/);
    const alias = names.wire(long);
    expect(alias).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(names.original(alias)).toBe(long);
    expect(names.original(dotted)).toBe('a.b');
    // The same names give the same aliases on the next turn.
    expect(new FunctionNames([long]).wire(long)).toBe(alias);
  });

  it('leaves a name the model made up as it is (the tool lookup then fails cleanly)', () => {
    expect(new FunctionNames(['a.b']).original('nope')).toBe('nope');
  });
});

describe('FunctionNames, one to one', () => {
  it("never gives an alias that is another tool's own name, whatever the order", () => {
    const alias = new FunctionNames(['a.b']).wire('a.b');
    for (const order of [
      ['a.b', alias],
      [alias, 'a.b'],
    ]) {
      const names = new FunctionNames(order);
      expect(names.wire(alias)).toBe(alias);
      expect(names.wire('a.b')).not.toBe(alias);
      expect(names.wire('a.b')).toMatch(/^a_b_[0-9a-f]{8}$/);
      expect(names.original(names.wire('a.b'))).toBe('a.b');
      expect(names.original(alias)).toBe(alias);
    }
  });

  it('gives distinct aliases to long names that share their first 55 characters', () => {
    const stem = `${'s'.repeat(60)}.`;
    const tools = Array.from({ length: 50 }, (_, i) => `${stem}${i}`);
    const names = new FunctionNames(tools);
    const wires = tools.map((tool) => names.wire(tool));
    expect(new Set(wires).size).toBe(tools.length);
    for (const [i, wire] of wires.entries()) {
      expect(wire).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(names.original(wire)).toBe(tools[i]);
    }
  });

  it('aliases a name first met in the history when its own spelling is already an alias', () => {
    const names = new FunctionNames(['a.b']);
    const alias = names.wire('a.b');
    expect(names.wire(alias)).not.toBe(alias);
    expect(names.original(names.wire(alias))).toBe(alias);
    expect(names.original(alias)).toBe('a.b');
  });
});
