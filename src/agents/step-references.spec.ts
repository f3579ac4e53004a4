import { describe, expect, it } from '@jest/globals';
import {
  ResolvedReferencesTooLarge,
  referencedSteps,
  resolveReferences,
} from './step-references.js';

const values = {
  input: 'find order 7',
  output: (id: string) =>
    ({ fetch: { order: { id: 7, items: ['a'] } }, 'say.hi': 'hello' })[id] as never,
};

describe('step references', () => {
  it('lists the steps a value refers to, dotted ids included', () => {
    expect(
      referencedSteps({ a: '{{ steps.fetch.output.order }}', b: ['x {{steps.say.hi.output}}'] }),
    ).toEqual(['fetch', 'say.hi']);
    expect(referencedSteps({ a: '{{input}}', n: 3 })).toEqual([]);
  });

  it('keeps the type of a whole-string reference and interpolates text otherwise', () => {
    expect(
      resolveReferences(
        {
          order: '{{steps.fetch.output.order}}',
          note: 'got {{steps.fetch.output.order.id}} for "{{input}}"',
          greeting: ['{{steps.say.hi.output}}!'],
          keep: 5,
        },
        values,
      ),
    ).toEqual({
      order: { id: 7, items: ['a'] },
      note: 'got 7 for "find order 7"',
      greeting: ['hello!'],
      keep: 5,
    });
  });

  it('resolves what does not exist to null (whole) or "null" (inside text)', () => {
    expect(resolveReferences('{{steps.ghost.output}}', values)).toBeNull();
    expect(resolveReferences('x={{steps.fetch.output.nope}}', values)).toBe('x=null');
  });

  it('stops expanding once references stand for more than the limit', () => {
    const big = { input: 'x'.repeat(10_000), output: () => ({ blob: 'y'.repeat(10_000) }) };
    // 18 characters each, 10,000 characters resolved each: a small spec, a huge expansion.
    const repeated = '{{input}}'.repeat(1000);
    expect(() => resolveReferences(repeated, big, 100_000)).toThrow(ResolvedReferencesTooLarge);
    const objects = Array.from({ length: 100 }, () => '{{steps.a.output}}');
    expect(() => resolveReferences(objects, big, 100_000)).toThrow(ResolvedReferencesTooLarge);
    // Under the limit, the same references resolve as usual.
    expect(resolveReferences('{{input}}'.repeat(5), big, 100_000)).toHaveLength(50_000);
  });
});
