import { describe, expect, it } from '@jest/globals';
import { ValidationProblem } from '../platform/http/problem.js';
import { MAX_INPUT_CHARS, MAX_INPUT_MESSAGES, checkRunInput } from './run-input.limits.js';

describe('the bounds of a run’s input', () => {
  it('takes an input within them and refuses one past either', () => {
    expect(() =>
      checkRunInput([{ role: 'user', content: 'x'.repeat(MAX_INPUT_CHARS) }]),
    ).not.toThrow();
    const long = [
      { role: 'system' as const, content: 'be brief' },
      { role: 'user' as const, content: 'x'.repeat(MAX_INPUT_CHARS + 1) },
    ];
    expect(() => checkRunInput(long)).toThrow(ValidationProblem);
    expect(() => checkRunInput(long)).toThrow(/message 2 of the input/);
    const many = Array.from({ length: MAX_INPUT_MESSAGES + 1 }, () => ({
      role: 'user' as const,
      content: 'x',
    }));
    expect(() => checkRunInput(many)).toThrow(/at most 200 messages/);
  });
});
