import { describe, expect, it } from '@jest/globals';
import { answeringCapabilities, canAnswer, unanswerableInputText } from './upstream-input.js';

describe('what a calling MCP client can answer for an upstream', () => {
  it('keeps only the input capabilities a client declared', () => {
    const declared = {
      elicitation: { form: {} },
      sampling: {},
      roots: { listChanged: true },
      experimental: { x: {} },
      tasks: {},
    };
    expect(answeringCapabilities(declared)).toEqual({
      elicitation: { form: {} },
      sampling: {},
      roots: { listChanged: true },
    });
    expect(answeringCapabilities(undefined)).toEqual({});
    expect(answeringCapabilities({ sampling: true })).toEqual({});
  });

  it('a client with none of them cannot answer', () => {
    expect(canAnswer(undefined)).toBe(false);
    expect(canAnswer({ capabilities: {} })).toBe(false);
    expect(canAnswer({ capabilities: { roots: {} } })).toBe(true);
  });

  it('tells a caller without a client what the upstream asked for', () => {
    const text = unanswerableInputText({
      inputRequests: {
        a: { method: 'elicitation/create', params: {} },
        b: { method: 'elicitation/create', params: {} },
        c: { method: 'sampling/createMessage', params: {} },
      },
    });
    expect(text).toContain('(elicitation/create, sampling/createMessage)');
    expect(unanswerableInputText({ requestState: 'x' })).toContain('asked for input that only');
  });
});
