import { afterEach, describe, expect, it } from '@jest/globals';
import type { ChatDelta, ChatRequest } from './chat.types.js';
import { EchoProvider } from './echo.provider.js';
import { NativeProvider } from './native.provider.js';
import { OpenAiProvider } from './openai.provider.js';
import { SseDataReader } from '../platform/http/sse-data-reader.js';
import { json, MockModelServer, sse } from './testing/mock-model-server.js';
import { providerConfig } from './testing/provider-config.js';

const simple: ChatRequest = {
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  toolset: 'default',
};

const chunk = (delta: unknown, finish: string | null = null) => ({
  model: 'm-1',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

const TEXT_STREAM = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Hello' }),
  chunk({ content: ' world' }),
  chunk({}, 'stop'),
  { model: 'm-1', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
  '[DONE]',
];

let mock: MockModelServer | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function serve(...steps: Parameters<typeof MockModelServer.start>) {
  mock = await MockModelServer.start(...steps);
  return mock;
}

/** Collects the deltas a call passes on. */
function collector() {
  const deltas: ChatDelta[] = [];
  return { deltas, onDelta: (delta: ChatDelta) => deltas.push(delta) };
}

describe('streamed completions', () => {
  it('openai: passes text deltas on as they arrive and answers the assembled completion', async () => {
    const server = await serve(sse(TEXT_STREAM, { everyMs: 30 }));
    const provider = new OpenAiProvider(providerConfig(`${server.url}/v1`));
    const { deltas, onDelta } = collector();
    const completion = await provider.complete(simple, { onDelta });
    expect(server.requests[0].body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(server.requests[0].headers.accept).toContain('text/event-stream');
    expect(deltas).toEqual([
      { kind: 'text', text: 'Hello' },
      { kind: 'text', text: ' world' },
    ]);
    expect(completion).toEqual({
      message: { role: 'assistant', content: 'Hello world' },
      finishReason: 'stop',
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      model: 'm-1',
    });
  });

  it('openai: tool-call chunks assemble into the same tool calls as a whole answer', async () => {
    const server = await serve(
      sse([
        chunk({
          role: 'assistant',
          content: null,
          tool_calls: [
            { index: 0, id: 'c1', type: 'function', function: { name: 'calc', arguments: '' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"expr' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'ession":"1+2"}' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'c2', function: { name: 'now', arguments: '{}' } }] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ]),
    );
    const { deltas, onDelta } = collector();
    const completion = await new OpenAiProvider(providerConfig(`${server.url}/v1`)).complete(
      simple,
      { onDelta },
    );
    expect(completion.finishReason).toBe('tool_calls');
    expect(completion.message.tool_calls).toEqual([
      { id: 'c1', name: 'calc', arguments: { expression: '1+2' } },
      { id: 'c2', name: 'now', arguments: {} },
    ]);
    expect(deltas).toEqual([
      { kind: 'tool_call', index: 0, id: 'c1', name: 'calc' },
      { kind: 'tool_call', index: 0, arguments: '{"expr' },
      { kind: 'tool_call', index: 0, arguments: 'ession":"1+2"}' },
      { kind: 'tool_call', index: 1, id: 'c2', name: 'now', arguments: '{}' },
    ]);
  });

  it('openai: a stream without [DONE] still ends the call; JSON instead of a stream is passed on whole', async () => {
    const server = await serve(
      sse(TEXT_STREAM.slice(0, 4)),
      json(200, {
        choices: [{ message: { role: 'assistant', content: 'whole' }, finish_reason: 'stop' }],
      }),
    );
    const provider = new OpenAiProvider(providerConfig(`${server.url}/v1`));
    expect((await provider.complete(simple, { onDelta: () => undefined })).message.content).toBe(
      'Hello world',
    );
    const { deltas, onDelta } = collector();
    expect((await provider.complete(simple, { onDelta })).message.content).toBe('whole');
    expect(deltas).toEqual([{ kind: 'text', text: 'whole' }]);
  });

  it('openai: retries a failure before the first delta, never after one (502)', async () => {
    const server = await serve(json(503, { error: 'busy' }), sse(TEXT_STREAM));
    const provider = new OpenAiProvider(providerConfig(`${server.url}/v1`, { timeoutMs: 10_000 }));
    expect((await provider.complete(simple, { onDelta: () => undefined })).message.content).toBe(
      'Hello world',
    );
    expect(server.requests).toHaveLength(2);

    await mock?.close();
    const broken = await serve(sse(TEXT_STREAM, { breakAfter: 2 }), sse(TEXT_STREAM));
    const again = new OpenAiProvider(providerConfig(`${broken.url}/v1`, { timeoutMs: 10_000 }));
    const { deltas, onDelta } = collector();
    const error = await again.complete(simple, { onDelta }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502 });
    expect(String((error as Error).message)).toContain('broke off');
    expect(broken.requests).toHaveLength(1);
    expect(deltas).toEqual([{ kind: 'text', text: 'Hello' }]);
  });

  it('openai: an abort stops the stream at once with the caller’s reason', async () => {
    const server = await serve(sse(TEXT_STREAM, { everyMs: 200 }));
    const provider = new OpenAiProvider(providerConfig(`${server.url}/v1`, { timeoutMs: 10_000 }));
    const controller = new AbortController();
    const error = await provider
      .complete(simple, {
        signal: controller.signal,
        onDelta: () => controller.abort(new Error('run cancelled')),
      })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('run cancelled');
  });

  it('native: streams {delta} events; a final {choice} is the answer', async () => {
    const server = await serve(
      sse([
        { delta: { content: 'par' } },
        { delta: { content: 'tial' }, model: 'native-1' },
        { choice: { message: { role: 'assistant', content: 'partial' }, finish_reason: 'stop' } },
      ]),
      sse([{ delta: { content: 'a' } }, { delta: { content: 'b' }, finish_reason: 'length' }]),
    );
    const provider = new NativeProvider(providerConfig(server.url, { kind: 'native' }));
    const { deltas, onDelta } = collector();
    const first = await provider.complete(simple, { onDelta });
    expect(server.requests[0].body).toMatchObject({ stream: true, toolset: 'default' });
    expect(deltas.map((delta) => (delta.kind === 'text' ? delta.text : ''))).toEqual([
      'par',
      'tial',
    ]);
    expect(first).toMatchObject({ message: { content: 'partial' }, model: 'native-1' });
    const second = await provider.complete(simple, { onDelta: () => undefined });
    expect(second).toMatchObject({ message: { content: 'ab' }, finishReason: 'length' });
  });

  it('echo: word by word, the pieces spelling the answer; a tool call in one chunk', async () => {
    const provider = new EchoProvider();
    const { deltas, onDelta } = collector();
    const said = '  several   words here ';
    const completion = await provider.complete(
      { ...simple, messages: [{ role: 'user', content: said }] },
      { onDelta },
    );
    expect(deltas.map((delta) => (delta.kind === 'text' ? delta.text : '?'))).toEqual([
      '  several   ',
      'words ',
      'here ',
    ]);
    expect(completion.message.content).toBe(said);
    const calls = collector();
    await provider.complete(
      { ...simple, messages: [{ role: 'user', content: '/tool clock.now {"tz":"UTC"}' }] },
      { onDelta: calls.onDelta },
    );
    expect(calls.deltas).toEqual([
      { kind: 'tool_call', index: 0, id: 'call_1', name: 'clock.now', arguments: '{"tz":"UTC"}' },
    ]);
  });
});

describe('SseDataReader', () => {
  it('joins data lines, skips comments and other fields, accepts CRLF and split chunks', () => {
    const reader = new SseDataReader();
    expect(reader.push(': hi\r\nevent: x\r\ndata: a\r\nda')).toEqual([]);
    expect(reader.push('ta: b\r\n\r\ndata:c\n\n')).toEqual(['a\nb', 'c']);
    expect(reader.push('data: tail')).toEqual([]);
    expect(reader.end()).toEqual(['tail']);
  });
});
