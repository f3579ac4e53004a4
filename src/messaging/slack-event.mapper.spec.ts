import { describe, expect, it } from '@jest/globals';
import { isSlackPayload, mapSlackPayload } from './slack-event.mapper.js';

const callback = (event: Record<string, unknown>) => ({
  token: 'x',
  team_id: 'T1',
  api_app_id: 'A1',
  type: 'event_callback',
  event_id: 'Ev1',
  event_time: 1,
  event,
});

const message = {
  type: 'message',
  channel: 'C1',
  user: 'U1',
  text: 'hello',
  ts: '1700000000.000100',
};

describe('isSlackPayload', () => {
  it('tells Slack payloads (a string type) from generic events', () => {
    expect(isSlackPayload({ type: 'url_verification', challenge: 'c' })).toBe(true);
    expect(isSlackPayload({ tenant_id: 'a', channel: 'chata' })).toBe(false);
    expect(isSlackPayload([{ type: 'x' }])).toBe(false);
    expect(isSlackPayload(null)).toBe(false);
  });
});

describe('mapSlackPayload', () => {
  it('answers url_verification with its challenge', () => {
    expect(mapSlackPayload({ type: 'url_verification', challenge: 'abc', token: 't' })).toEqual({
      kind: 'challenge',
      challenge: 'abc',
    });
  });

  it('maps a person’s message to channel, user, text and a dedupe key of team, channel and ts', () => {
    expect(mapSlackPayload(callback(message))).toEqual({
      kind: 'message',
      workspace: { team: 'T1', enterprise: undefined },
      conversationId: 'C1',
      user: 'U1',
      text: 'hello',
      eventId: 'T1:C1:1700000000.000100',
    });
  });

  it('maps an app_mention without the leading mention, to the same key as its message event', () => {
    const mention = { ...message, type: 'app_mention', text: '<@U0APP> what is 2+2?' };
    const mapped = mapSlackPayload({ ...callback(mention), event_id: 'Ev2' });
    expect(mapped).toMatchObject({ kind: 'message', text: 'what is 2+2?' });
    expect(mapped).toMatchObject({ eventId: 'T1:C1:1700000000.000100' });
  });

  it('names the workspace from the envelope, not from the sender’s team in a shared channel', () => {
    const shared = { ...message, team: 'T9OTHER' };
    expect(mapSlackPayload({ ...callback(shared), enterprise_id: 'E1' })).toMatchObject({
      workspace: { team: 'T1', enterprise: 'E1' },
    });
  });

  it('makes a thread its own conversation', () => {
    const reply = { ...message, thread_ts: '1699999999.000001' };
    expect(mapSlackPayload(callback(reply))).toMatchObject({
      conversationId: 'C1:1699999999.000001',
    });
  });

  it('ignores bot messages, edits, deletions, other subtypes and other events', () => {
    const ignored = (event: Record<string, unknown>) => mapSlackPayload(callback(event)).kind;
    expect(ignored({ ...message, bot_id: 'B1' })).toBe('ignored');
    expect(ignored({ ...message, subtype: 'bot_message' })).toBe('ignored');
    expect(ignored({ ...message, subtype: 'message_changed' })).toBe('ignored');
    expect(ignored({ ...message, subtype: 'message_deleted' })).toBe('ignored');
    expect(ignored({ ...message, subtype: 'channel_join' })).toBe('ignored');
    expect(ignored({ ...message, edited: { user: 'U1', ts: '1' } })).toBe('ignored');
    expect(ignored({ ...message, text: '   ' })).toBe('ignored');
    expect(ignored({ ...message, user: undefined })).toBe('ignored');
    expect(ignored({ type: 'reaction_added', user: 'U1' })).toBe('ignored');
    expect(ignored({ ...message, subtype: 'thread_broadcast' })).toBe('message');
    expect(mapSlackPayload({ type: 'app_rate_limited' })).toEqual({
      kind: 'ignored',
      reason: 'payload app_rate_limited',
    });
  });
});
