import { describe, expect, it } from '@jest/globals';
import type { ProblemDetails } from '../platform/http/problem.js';
import type { ChatCompletionDto } from './dto/chat-completion.dto.js';
import { toOpenAiError } from './openai-error.js';
import { refusedFields } from './wire-options.js';

const body = (extra: Partial<ChatCompletionDto>) => ({ model: 'default', messages: [], ...extra });
const refused = (extra: Partial<ChatCompletionDto>) =>
  refusedFields(body(extra)).map((error) => error.path);

describe('OpenAI request settings', () => {
  it('accepts what asks for what a run does anyway', () => {
    expect(
      refused({
        n: 1,
        tools: [],
        functions: [],
        tool_choice: 'auto',
        function_call: 'none',
        response_format: { type: 'text' },
        logprobs: false,
        modalities: ['text'],
        audio: null,
      }),
    ).toEqual([]);
  });

  it('refuses what a run cannot honour, naming each field', () => {
    expect(refused({ n: 2 })).toEqual(['n']);
    expect(refused({ tools: [{ type: 'function' }] })).toEqual(['tools']);
    expect(refused({ tool_choice: 'required' })).toEqual(['tool_choice']);
    expect(refused({ response_format: { type: 'json_schema' } })).toEqual(['response_format']);
    expect(refused({ logprobs: true, modalities: ['audio'], audio: {} })).toEqual([
      'logprobs',
      'modalities',
      'audio',
    ]);
  });

  it('says each field error once in OpenAI’s message', () => {
    const problem: ProblemDetails = {
      type: 'urn:svc:problem:validation',
      title: 'Bad Request',
      status: 400,
      detail: 'messages must contain at least 1 elements',
      errors: [
        { path: 'messages', message: 'messages must contain at least 1 elements' },
        { path: 'n', message: 'must be 1' },
      ],
    };
    expect(toOpenAiError(problem).error).toEqual({
      message: 'messages must contain at least 1 elements: n: must be 1',
      type: 'invalid_request_error',
      param: 'messages',
      code: 'validation',
    });
  });
});
