import { describe, expect, it } from '@jest/globals';
import { addUsage, requestedModel } from './usage.js';

describe('run usage', () => {
  it('sums calls into totals and per model', () => {
    let usage = addUsage(undefined, { prompt_tokens: 10, completion_tokens: 5 }, 'model-a');
    usage = addUsage(
      usage,
      { prompt_tokens: 7, completion_tokens: 3, total_tokens: 11 },
      'model-b',
    );
    usage = addUsage(usage, { prompt_tokens: 1, completion_tokens: 1 }, 'model-a');
    expect(usage).toEqual({
      prompt_tokens: 18,
      completion_tokens: 9,
      // A provider's own total is kept as it said (here one more than its parts).
      total_tokens: 28,
      by_model: {
        'model-a': { prompt_tokens: 11, completion_tokens: 6, calls: 2 },
        'model-b': { prompt_tokens: 7, completion_tokens: 3, calls: 1 },
      },
    });
  });

  it('adds nothing for a call that reported no usage', () => {
    expect(addUsage(undefined, undefined, 'm')).toBeUndefined();
    const before = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
    expect(addUsage(before, undefined, 'm')).toBe(before);
  });

  it('goes on from a record written before usage was kept per model', () => {
    const old = { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 };
    expect(addUsage(old, { prompt_tokens: 1, completion_tokens: 2 }, 'm')).toEqual({
      prompt_tokens: 101,
      completion_tokens: 52,
      total_tokens: 153,
      by_model: { m: { prompt_tokens: 1, completion_tokens: 2, calls: 1 } },
    });
  });

  it('names the model a call asks for as the providers do', () => {
    expect(requestedModel('gpt-x', { model: 'fallback' })).toBe('gpt-x');
    expect(requestedModel(undefined, { model: 'fallback' })).toBe('fallback');
    expect(requestedModel(undefined, {})).toBe('default');
  });
});
