import { describe, expect, it } from '@jest/globals';
import { jsonTextTooDeep, valueTooDeep } from './json-depth.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('jsonTextTooDeep', () => {
  it('counts objects and arrays as levels, up to and including the limit', () => {
    expect(jsonTextTooDeep(bytes('{"a":[{"b":[]}]}'), 4)).toBe(false);
    expect(jsonTextTooDeep(bytes('{"a":[{"b":[[]]}]}'), 4)).toBe(true);
    expect(jsonTextTooDeep(bytes('"text" 1 true null'), 1)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonTextTooDeep(bytes(`["${'['.repeat(100)}"]`), 2)).toBe(false);
    expect(jsonTextTooDeep(bytes(`["\\"${'{'.repeat(100)}", "\\\\", []]`), 2)).toBe(false);
    expect(jsonTextTooDeep(bytes(`["\\\\", [[]]]`), 2)).toBe(true);
    expect(jsonTextTooDeep(bytes(`["é ☃ 😀 ${'['.repeat(9)}"]`), 1)).toBe(false);
  });

  it('reads a million levels without recursion', () => {
    expect(jsonTextTooDeep(bytes(nested(1_000_000)), 64)).toBe(true);
  });
});

describe('valueTooDeep', () => {
  it('agrees with the text check on parsed values', () => {
    for (const text of ['{}', '[[[]]]', '{"a":{"b":[1,{"c":2}]}}', nested(64), nested(65)]) {
      expect(valueTooDeep(JSON.parse(text), 64)).toBe(jsonTextTooDeep(bytes(text), 64));
    }
  });

  it('walks a deep value without recursion', () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(valueTooDeep(deep, 64)).toBe(true);
    expect(valueTooDeep({ a: [{}], b: 1 }, 3)).toBe(false);
  });
});
