import { describe, expect, it } from '@jest/globals';
import { ShapedTexts } from './shaped-texts.js';

describe('ShapedTexts', () => {
  it('makes a text once per shape and answers it again for that shape', () => {
    const made: number[] = [];
    const texts = new ShapedTexts((rows: number) => {
      made.push(rows);
      return `INSERT INTO t VALUES ${Array.from({ length: rows }, () => '(?)').join(', ')}`;
    });
    expect(texts.of(2)).toBe('INSERT INTO t VALUES (?), (?)');
    expect(texts.of(1)).toBe('INSERT INTO t VALUES (?)');
    expect(texts.of(2)).toBe('INSERT INTO t VALUES (?), (?)');
    expect(made).toEqual([2, 1]);
  });

  it('stops remembering past its bound, and still answers every shape', () => {
    let made = 0;
    const texts = new ShapedTexts((rows: number) => {
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
