import { describe, expect, it } from '@jest/globals';
import { ValidationProblem } from '../platform/http/problem.js';
import type { WireMessageDto } from './dto/chat-completion.dto.js';
import { runInput } from './wire-input.js';

const m = (role: WireMessageDto['role'], content: WireMessageDto['content'], extra = {}) =>
  ({ role, content, ...extra }) as WireMessageDto;

describe('the run input of OpenAI messages', () => {
  it('takes text and text parts; developer is a system message', () => {
    expect(
      runInput(
        [
          m('developer', 'be brief'),
          m('user', [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ]),
          m('assistant', null),
        ],
        false,
      ),
    ).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'ab' },
      { role: 'assistant', content: '' },
    ]);
  });

  it('continuing a session, takes only what follows the last assistant message', () => {
    const messages = [m('user', 'one'), m('assistant', 'one'), m('user', 'two')];
    expect(runInput(messages, true)).toEqual([{ role: 'user', content: 'two' }]);
    expect(() => runInput([m('user', 'one'), m('assistant', 'one')], true)).toThrow(
      ValidationProblem,
    );
  });

  it('refuses tool messages, tool calls, non-text parts and a null user message', () => {
    const refused = (messages: WireMessageDto[]) => {
      try {
        runInput(messages, false);
      } catch (error) {
        return (error as ValidationProblem).errors?.[0]?.path;
      }
      return 'accepted';
    };
    expect(refused([m('tool', 'x', { tool_call_id: 'c1' })])).toBe('messages[0]');
    expect(refused([m('assistant', '', { tool_calls: [] })])).toBe('messages[0]');
    expect(refused([m('user', [{ type: 'image_url', image_url: { url: 'u' } }])])).toBe(
      'messages[0].content[0]',
    );
    expect(refused([m('user', null)])).toBe('messages[0].content');
  });
});
