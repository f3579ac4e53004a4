import { describe, expect, it } from '@jest/globals';
import { conversationSessionId, messageId } from './message-ids.js';

describe('message ids', () => {
  it('are deterministic and differ by channel and value', () => {
    expect(messageId('chata', 'Ev1')).toBe(messageId('chata', 'Ev1'));
    expect(messageId('chata', 'Ev1')).toMatch(/^msg-[0-9a-f]{32}$/);
    expect(messageId('chata', 'Ev1')).not.toBe(messageId('chatb', 'Ev1'));
    expect(messageId('chata', 'Ev1')).not.toBe(messageId('chata', 'Ev2'));
    expect(conversationSessionId('chatb', 'room 1')).toMatch(/^conv-[0-9a-f]{32}$/);
    expect(conversationSessionId('chatb', 'room 1')).toBe(conversationSessionId('chatb', 'room 1'));
    expect(conversationSessionId('chata', 'room 1')).not.toBe(
      conversationSessionId('chatb', 'room 1'),
    );
  });
});
