import { afterEach, describe, expect, it } from '@jest/globals';
import type { ChatRequest } from './chat.types.js';
import { chatCompletionsUrl, OpenAiProvider } from './openai.provider.js';
import { json, MockModelServer } from './testing/mock-model-server.js';
import { providerConfig } from './testing/provider-config.js';

const calculator = {
  name: 'calculator',
  description: 'Evaluates an arithmetic expression',
  parameters: { type: 'object' as const, properties: { expression: { type: 'string' } } },
};

const answer = (message: unknown, extra: Record<string, unknown> = {}) =>
  json(200, { choices: [{ index: 0, message, finish_reason: 'stop' }], ...extra });

const simple: ChatRequest = {
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  toolset: 'default',
};

let mock: MockModelServer | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function serve(...steps: Parameters<typeof MockModelServer.start>) {
  mock = await MockModelServer.start(...steps);
  return mock;
}

describe('chatCompletionsUrl', () => {
  it.each([
    ['http://h/v1', 'http://h/v1/chat/completions'],
    ['http://h/v1/', 'http://h/v1/chat/completions'],
    ['http://h', 'http://h/chat/completions'],
    ['http://h/v1/chat/completions', 'http://h/v1/chat/completions'],
    ['http://h/openai/v1?api-version=2024', 'http://h/openai/v1/chat/completions?api-version=2024'],
  ])('%s → %s', (base, expected) => {
    expect(chatCompletionsUrl(base)).toBe(expected);
  });
});

describe('OpenAiProvider', () => {
  it('sends the OpenAI request shape with tools, tool calls, tool results and the key', async () => {
    const server = await serve(answer({ role: 'assistant', content: 'It is 14.' }));
    const provider = new OpenAiProvider(
      providerConfig(`${server.url}/v1`, { apiKey: 'sk-test-key', model: 'gpt-x' }),
    );
    const completion = await provider.complete({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'what is 2*(3+4)?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c1', name: 'calculator', arguments: { expression: '2*(3+4)' } }],
        },
        { role: 'tool', tool_call_id: 'c1', name: 'calculator', content: '14' },
      ],
      tools: [calculator],
      toolset: 'default',
    });
    expect(completion).toEqual({
      message: { role: 'assistant', content: 'It is 14.' },
      finishReason: 'stop',
    });
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test-key');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body).toEqual({
      model: 'gpt-x',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'what is 2*(3+4)?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'calculator', arguments: '{"expression":"2*(3+4)"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', name: 'calculator', content: '14' },
      ],
      tools: [{ type: 'function', function: calculator }],
    });
  });

  it('omits tools and the key when there are none; the request model wins', async () => {
    const server = await serve(answer({ role: 'assistant', content: 'ok' }));
    const provider = new OpenAiProvider(providerConfig(`${server.url}/v1/chat/completions`));
    await provider.complete({ ...simple, model: 'llama3' });
    await provider.complete(simple);
    const [first, second] = server.requests;
    expect(first.path).toBe('/v1/chat/completions');
    expect(first.headers.authorization).toBeUndefined();
    expect(first.body).toEqual({ model: 'llama3', messages: [{ role: 'user', content: 'hi' }] });
    expect(second.body).toMatchObject({ model: 'default' });
  });

  it('parses tool calls whose arguments are JSON strings, with usage and model', async () => {
    const server = await serve(
      json(200, {
        model: 'gpt-x-2025',
        choices: [
          {
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_abc',
                  type: 'function',
                  function: { name: 'calculator', arguments: '{"expression":"1+1"}' },
                },
                { type: 'function', function: { name: 'calculator', arguments: '{oops' } },
                { id: 'call_empty', type: 'function', function: { name: 'clock', arguments: '' } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
      }),
    );
    const completion = await new OpenAiProvider(providerConfig(server.url)).complete(simple);
    expect(completion.finishReason).toBe('tool_calls');
    expect(completion.message.content).toBe('');
    expect(completion.usage).toEqual({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
    expect(completion.model).toBe('gpt-x-2025');
    const [first, second, third] = completion.message.tool_calls ?? [];
    expect(first).toEqual({ id: 'call_abc', name: 'calculator', arguments: { expression: '1+1' } });
    // No id: one is made up; unparsable arguments stay raw for the tool layer to reject.
    expect(second.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(second.arguments).toBe('{oops');
    expect(third.arguments).toEqual({});
  });

  it('tolerates missing optional fields', async () => {
    const server = await serve(
      json(200, { choices: [{ message: { role: 'assistant', content: 'hello' } }] }),
      json(200, {
        choices: [{ message: { content: 'cut', role: 'assistant' }, finish_reason: 'length' }],
      }),
      json(200, {
        choices: [
          {
            message: { function_call: { name: 'clock', arguments: '{}' } },
            finish_reason: 'function_call',
          },
        ],
      }),
    );
    const provider = new OpenAiProvider(providerConfig(server.url));
    const plain = await provider.complete(simple);
    expect(plain).toEqual({
      message: { role: 'assistant', content: 'hello' },
      finishReason: 'stop',
    });
    expect((await provider.complete(simple)).finishReason).toBe('length');
    const legacy = await provider.complete(simple);
    expect(legacy.finishReason).toBe('tool_calls');
    expect(legacy.message.tool_calls).toMatchObject([{ name: 'clock', arguments: {} }]);
  });
});
