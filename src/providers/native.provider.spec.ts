import { afterEach, describe, expect, it } from '@jest/globals';
import { ProblemException } from '../platform/http/problem.js';
import type { ChatRequest } from './chat.types.js';
import { NativeProvider } from './native.provider.js';
import { json, MockModelServer, type Step } from './testing/mock-model-server.js';
import { providerConfig } from './testing/provider-config.js';

const clock = {
  name: 'clock',
  description: 'Current time',
  parameters: { type: 'object' as const, properties: {} },
};

const request: ChatRequest = {
  messages: [
    { role: 'user', content: 'time?' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'clock', arguments: {} }] },
    { role: 'tool', tool_call_id: 'c1', name: 'clock', content: '12:00' },
  ],
  tools: [clock],
  toolset: 'ops',
};

let mock: MockModelServer | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function providerFor(...steps: Step[]) {
  mock = await MockModelServer.start(...steps);
  const config = providerConfig(`${mock.url}/chat`, { kind: 'native', apiKey: 'nk-123456' });
  return { server: mock, provider: new NativeProvider(config) };
}

describe('NativeProvider', () => {
  it('posts the spec chat request to the URL as is and reads choice.message', async () => {
    const { server, provider } = await providerFor(
      json(200, {
        choice: { message: { role: 'assistant', content: 'It is noon.' }, finish_reason: 'stop' },
        usage: { total_tokens: 9 },
      }),
    );
    const completion = await provider.complete({ ...request, model: 'house-model' });
    expect(completion).toEqual({
      message: { role: 'assistant', content: 'It is noon.' },
      finishReason: 'stop',
      usage: { total_tokens: 9 },
    });
    const [sent] = server.requests;
    expect(sent.path).toBe('/chat');
    expect(sent.headers.authorization).toBe('Bearer nk-123456');
    expect(sent.body).toEqual({
      messages: request.messages,
      tools: [clock],
      model: 'house-model',
      toolset: 'ops',
    });
  });

  it('accepts tool calls in the plain and the OpenAI shape and infers the finish reason', async () => {
    const { provider } = await providerFor(
      json(200, {
        choice: {
          message: {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'p1', name: 'clock', arguments: { zone: 'UTC' } },
              {
                id: 'o1',
                type: 'function',
                function: { name: 'clock', arguments: '{"zone":"CET"}' },
              },
            ],
          },
        },
      }),
    );
    const completion = await provider.complete(request);
    expect(completion.finishReason).toBe('tool_calls');
    expect(completion.message.tool_calls).toEqual([
      { id: 'p1', name: 'clock', arguments: { zone: 'UTC' } },
      { id: 'o1', name: 'clock', arguments: { zone: 'CET' } },
    ]);
  });

  it('infers stop without tool calls and reads length', async () => {
    const { provider } = await providerFor(
      json(200, { choice: { message: { role: 'assistant', content: 'done' } } }),
      json(200, { choice: { message: { content: 'cu' }, finish_reason: 'length' } }),
    );
    expect((await provider.complete(request)).finishReason).toBe('stop');
    expect(await provider.complete(request)).toEqual({
      message: { role: 'assistant', content: 'cu' },
      finishReason: 'length',
    });
  });

  it('answers 502 to an OpenAI-shaped body (no choice)', async () => {
    const { provider } = await providerFor(json(200, { choices: [{ message: { content: 'x' } }] }));
    const error = await provider.complete(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemException);
    expect((error as ProblemException).getStatus()).toBe(502);
    expect((error as ProblemException).message).toMatch(/choice is missing/);
  });
});
