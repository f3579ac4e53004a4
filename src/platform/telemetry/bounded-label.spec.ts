import { describe, expect, it } from '@jest/globals';
import { BoundedLabel } from './bounded-label.js';

describe('BoundedLabel', () => {
  it('passes the first distinct values and reports later ones as other', () => {
    const label = new BoundedLabel(2);
    expect(['a', 'b', 'a', 'c', 'b', 'd'].map((v) => label.value(v))).toEqual([
      'a',
      'b',
      'a',
      'other',
      'b',
      'other',
    ]);
  });
});
