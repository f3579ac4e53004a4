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
