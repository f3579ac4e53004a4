import { describe, expect, it } from '@jest/globals';
import { ProblemException } from '../platform/http/problem.js';
import { parseCompletion } from './completion.parser.js';

function problemOf(body: unknown, choice: unknown): ProblemException {
  try {
    parseCompletion(body, choice, 'choices[0]');
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemException);
    return error as ProblemException;
  }
  throw new Error('expected a ProblemException');
}

describe('parseCompletion', () => {
  it.each([
    ['a missing choice', undefined, /choices\[0\] is missing/],
    ['a choice without a message', { index: 0 }, /choices\[0\]\.message is missing/],
    ['content that is a number', { message: { content: 3 } }, /content is neither text nor null/],
    ['tool_calls that are not a list', { message: { tool_calls: {} } }, /not an array/],
    [
      'a tool call without a name',
      { message: { tool_calls: [{ id: 'x', function: { arguments: '{}' } }] } },
      /tool_calls\[0\] has no name/,
    ],
  ])('answers 502 to %s', (_name, choice, detail) => {
    const problem = problemOf({}, choice);
    expect(problem.getStatus()).toBe(502);
    expect(problem.slug).toBe('provider-failed');
    expect(problem.message).toMatch(detail);
  });

  it('joins OpenAI content parts and keeps only numeric usage', () => {
    const body = { usage: { prompt_tokens: 3, total_tokens: 'many' } };
    const choice = {
      message: {
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    };
    expect(parseCompletion(body, choice, 'choices[0]')).toEqual({
      message: { role: 'assistant', content: 'ab' },
      finishReason: 'stop',
      usage: { prompt_tokens: 3 },
    });
  });

  it('reports tool_calls only when the message carries tool calls', () => {
    const completion = parseCompletion(
      {},
      { message: { content: 'hi' }, finish_reason: 'tool_calls' },
      'c',
    );
    expect(completion.finishReason).toBe('stop');
  });
});
