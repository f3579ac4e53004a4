import { describe, expect, it } from '@jest/globals';
import { ShapedTexts } from './shaped-texts.js';

describe('ShapedTexts', () => {
  it('makes a text once per shape and answers it again for that shape', () => {
    const made: number[][] = [];
    const texts = new ShapedTexts((rows, returning) => {
      made.push([rows, returning]);
      const values = Array.from({ length: rows }, () => '(?)').join(', ');
      return `INSERT INTO t VALUES ${values}${returning === 1 ? ' RETURNING id' : ''}`;
    });
    expect(texts.of(2, 0)).toBe('INSERT INTO t VALUES (?), (?)');
    expect(texts.of(1, 1)).toBe('INSERT INTO t VALUES (?) RETURNING id');
    expect(texts.of(2, 0)).toBe('INSERT INTO t VALUES (?), (?)');
    expect(texts.of(1, 0)).toBe('INSERT INTO t VALUES (?)');
    expect(made).toEqual([
      [2, 0],
      [1, 1],
      [1, 0],
    ]);
  });

  it('stops remembering past its bound, and still answers every shape', () => {
    let made = 0;
    const texts = new ShapedTexts((rows) => {
      made += 1;
      return `rows ${rows}`;
    });
    for (let rows = 0; rows < 200; rows++) expect(texts.of(rows)).toBe(`rows ${rows}`);
    const before = made;
    expect(texts.of(0)).toBe('rows 0');
    expect(texts.of(199)).toBe('rows 199');
    expect(made).toBe(before + 1);
  });
});
