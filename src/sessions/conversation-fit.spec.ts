import { describe, expect, it } from '@jest/globals';
import type { ChatMessage } from '../providers/chat.types.js';
import { expectValidHistory } from '../../test/support/chat-history.js';
import { MAX_SESSION_MESSAGES, fitConversation } from './conversation-fit.js';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const reply = (content: string): ChatMessage => ({ role: 'assistant', content });
/** One exchange with a tool call: user, assistant asking, the tool's result, the answer. */
function exchange(n: number, resultBytes = 1000): ChatMessage[] {
  return [
    user(`question ${n}`),
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: `call-${n}`, name: 'lookup', arguments: { n } }],
    },
    { role: 'tool', tool_call_id: `call-${n}`, name: 'lookup', content: 'r'.repeat(resultBytes) },
    reply(`answer ${n}`),
  ];
}

const stored = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('fitConversation', () => {
  it('keeps a conversation within the bound as it is', () => {
    const messages = [...exchange(1), ...exchange(2)];
    const fit = fitConversation({ messages, ownFrom: 4, trimmedBefore: 0, maxBytes: 100_000 });
    expect(fit).toEqual({
      fits: true,
      stored: { messages },
      ownMessages: messages.slice(4),
    });
  });

  it('drops the oldest whole exchanges, counts them, and measures what is stored', () => {
    const history = Array.from({ length: 30 }, (_, i) => exchange(i)).flat();
    const own = exchange(30);
    const maxBytes = 10_000;
    const fit = fitConversation({
      messages: [...history, ...own],
      ownFrom: history.length,
      trimmedBefore: 7,
      maxBytes,
    });
    if (!fit.fits) throw new Error('expected a fit');
    expect(stored(fit.stored)).toBeLessThanOrEqual(maxBytes);
    expect(fit.stored.messages[0].role).toBe('user');
    expect(fit.stored.messages.slice(-4)).toEqual(own);
    const dropped = history.length + own.length - fit.stored.messages.length;
    expect(dropped % 4).toBe(0);
    expect(fit.stored.trimmed).toBe(7 + dropped);
    expectValidHistory(fit.stored.messages);
  });

  it('never separates tool results from their call, whatever the bound', () => {
    const history = Array.from({ length: 12 }, (_, i) => exchange(i, 100 * i)).flat();
    const own = exchange(99, 50);
    for (let maxBytes = 800; maxBytes < 20_000; maxBytes += 97) {
      const fit = fitConversation({
        messages: [...history, ...own],
        ownFrom: history.length,
        trimmedBefore: 0,
        maxBytes,
      });
      if (!fit.fits) continue;
      expect(stored(fit.stored)).toBeLessThanOrEqual(maxBytes);
      expectValidHistory(fit.stored.messages);
    }
  });

  it("replaces the run's own tool results, oldest first, when the run alone is too big", () => {
    const own = [
      user('fetch three pages'),
      {
        role: 'assistant' as const,
        content: '',
        tool_calls: [1, 2, 3].map((n) => ({ id: `c${n}`, name: 'get', arguments: { n } })),
      },
      ...[1, 2, 3].map((n) => ({
        role: 'tool' as const,
        tool_call_id: `c${n}`,
        name: 'get',
        content: String(n).repeat(3000),
      })),
      reply('done'),
    ];
    const fit = fitConversation({
      messages: [...exchange(0), ...own],
      ownFrom: 4,
      trimmedBefore: 0,
      maxBytes: 5000,
    });
    if (!fit.fits) throw new Error('expected a fit');
    expect(stored(fit.stored)).toBeLessThanOrEqual(5000);
    expect(fit.stored.trimmed).toBe(4);
    const results = fit.ownMessages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(results[0]).toMatch(/^\[svc: this tool result \(3000 bytes\) was left out/);
    expect(results[2]).toBe('3'.repeat(3000));
    expectValidHistory(fit.stored.messages);
  });

  it('does not fit when the run itself, without tool results, is too big', () => {
    const fit = fitConversation({
      messages: [...exchange(0), user('x'.repeat(6000))],
      ownFrom: 4,
      trimmedBefore: 0,
      maxBytes: 5000,
    });
    expect(fit).toMatchObject({ fits: false });
    expect(fit.fits ? 0 : fit.bytes).toBeGreaterThan(5000);
  });

  it('keeps at most MAX_SESSION_MESSAGES earlier messages, in whole exchanges', () => {
    const history = Array.from({ length: 200 }, (_, i) => exchange(i, 1)).flat();
    const fit = fitConversation({
      messages: [...history, user('next')],
      ownFrom: history.length,
      trimmedBefore: 0,
      maxBytes: 10 * 1024 * 1024,
    });
    if (!fit.fits) throw new Error('expected a fit');
    expect(fit.stored.messages.length - 1).toBeLessThanOrEqual(MAX_SESSION_MESSAGES);
    expect(fit.stored.messages[0].role).toBe('user');
    expectValidHistory(fit.stored.messages);
  });

  it('heals a session left starting with a tool result by older versions', () => {
    const history = [...exchange(0).slice(2), ...exchange(1)];
    const fit = fitConversation({
      messages: [...history, user('next')],
      ownFrom: history.length,
      trimmedBefore: 0,
      maxBytes: 1024 * 1024,
    });
    if (!fit.fits) throw new Error('expected a fit');
    expect(fit.stored.messages[0]).toEqual(user('question 1'));
    expect(fit.stored.trimmed).toBe(2);
  });
});
