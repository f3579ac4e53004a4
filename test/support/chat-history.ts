import { expect } from '@jest/globals';
import type { ChatMessage } from '../../src/providers/chat.types.js';

/**
 * What an OpenAI-compatible endpoint requires of a history: it does not start with a tool
 * result, and every tool result follows the assistant message that called it, all of them.
 */
export function expectValidHistory(messages: readonly ChatMessage[]): void {
  expect(messages[0]?.role).not.toBe('tool');
  let open = new Set<string>();
  for (const message of messages) {
    if (message.role === 'tool') {
      expect(open.has(message.tool_call_id ?? '')).toBe(true);
      open.delete(message.tool_call_id ?? '');
      continue;
    }
    expect(open.size).toBe(0);
    open = new Set((message.tool_calls ?? []).map((call) => call.id));
  }
  expect(open.size).toBe(0);
}
