import { describe, expect, it } from '@jest/globals';
import type { ChatMessage } from './chat.types.js';
import { EchoProvider } from './echo.provider.js';

const provider = new EchoProvider();
const complete = (messages: ChatMessage[]) =>
  provider.complete({ messages, tools: [], toolset: 'default' });

describe('EchoProvider', () => {
  it('echoes the last user message', async () => {
    const completion = await complete([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'first' },
      { role: 'user', content: 'hello there' },
    ]);
    expect(completion).toMatchObject({
      message: { role: 'assistant', content: 'hello there' },
      finishReason: 'stop',
    });
    expect(completion.message.tool_calls).toBeUndefined();
  });

  it('answers with an empty text when there is no user message', async () => {
    const completion = await complete([{ role: 'system', content: 'be brief' }]);
    expect(completion.message.content).toBe('');
    expect(completion.finishReason).toBe('stop');
  });

  it('turns /tool NAME {args} into a tool call with parsed arguments', async () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: '/tool calculator {"expression":"2*(3+4)"}' },
    ];
    const first = await complete(messages);
    expect(first).toEqual({
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_1', name: 'calculator', arguments: { expression: '2*(3+4)' } }],
      },
      finishReason: 'tool_calls',
      model: 'echo',
      usage: expect.any(Object),
    });
    // Deterministic: the same conversation gives the same call.
    expect(await complete(messages)).toEqual(first);
  });

  it('reports estimated usage: about four characters a token, in and out', async () => {
    const completion = await complete([
      { role: 'system', content: 'x'.repeat(8) },
      { role: 'user', content: 'y'.repeat(10) },
    ]);
    // 8/4 + ceil(10/4) in; the answer (the last user message, no tool calls: "[]") out.
    expect(completion.usage).toEqual({
      prompt_tokens: 5,
      completion_tokens: Math.ceil(12 / 4),
      total_tokens: 8,
    });
  });

  it('defaults the arguments to {} and accepts dotted names', async () => {
    const completion = await complete([{ role: 'user', content: '  /tool clock.now  ' }]);
    expect(completion.message.tool_calls).toEqual([
      { id: 'call_1', name: 'clock.now', arguments: {} },
    ]);
  });

  it.each([
    ['/tool calculator {not json}'],
    ['/tool calculator [1, 2]'],
    ['/tool calculator "text"'],
  ])('echoes %s instead of calling a tool with bad arguments', async (content) => {
    const completion = await complete([{ role: 'user', content }]);
    expect(completion.finishReason).toBe('stop');
    expect(completion.message).toEqual({ role: 'assistant', content });
  });

  it('answers a tool result by quoting it', async () => {
    const completion = await complete([
      { role: 'user', content: '/tool calculator {"expression":"2*(3+4)"}' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_1', name: 'calculator', arguments: { expression: '2*(3+4)' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '14' },
    ]);
    expect(completion.finishReason).toBe('stop');
    expect(completion.message.content).toContain('calculator → 14');
  });

  it('joins several tool results of one turn', async () => {
    const completion = await complete([
      { role: 'user', content: 'two tools' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'a', name: 'calculator', arguments: {} },
          { id: 'b', name: 'clock', arguments: {} },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: '14' },
      { role: 'tool', tool_call_id: 'b', name: 'clock', content: '12:00' },
    ]);
    expect(completion.message.content).toBe('calculator → 14\nclock → 12:00');
  });

  it('refuses to answer once the caller has aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('caller gave up'));
    await expect(
      provider.complete(
        { messages: [], tools: [], toolset: 'default' },
        { signal: controller.signal },
      ),
    ).rejects.toThrow('caller gave up');
  });
});
