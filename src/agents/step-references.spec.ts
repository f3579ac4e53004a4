import { describe, expect, it } from '@jest/globals';
import { referencedSteps, resolveReferences } from './step-references.js';

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
});
