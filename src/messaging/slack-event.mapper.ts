/** Who a Slack event came from: fields of the signed body, so they decide its tenant. */
export interface SlackWorkspace {
  team?: string;
  enterprise?: string;
}

/** A Slack Events API payload reduced to what the gateway acts on. */
export type SlackMapping =
  | { kind: 'challenge'; challenge: string }
  | {
      kind: 'message';
      /** The workspace the event was delivered for (`team_id`), and its Enterprise Grid org. */
      workspace: SlackWorkspace;
      conversationId: string;
      user: string;
      text: string;
      eventId: string;
    }
  | { kind: 'ignored'; reason: string };

/** Message subtypes that are still a person writing something new. */
const USER_SUBTYPES = new Set(['thread_broadcast', 'file_share']);
/** A leading mention of the app itself (`<@U0APP> hello`), which is how app_mention text starts. */
const LEADING_MENTION = /^\s*<@[A-Z0-9]+(\|[^>]*)?>[\s,:]*/;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** Slack's payloads carry a string `type`; the gateway's generic event has none. */
export function isSlackPayload(body: unknown): body is Json & { type: string } {
  return isObject(body) && typeof body.type === 'string';
}

/**
 * Maps a Slack Events API payload: `url_verification` answers its challenge; an `event_callback`
 * with a `message` or `app_mention` from a person becomes a message. Bot messages (the agent's
 * own replies included), edits, deletions and other subtypes are ignored, so the agent never
 * answers itself. The dedupe key is the message's channel and `ts`: Slack sends one message as
 * both `message` and `app_mention` (two event ids), and its retries keep the `ts`.
 */
export function mapSlackPayload(body: Json & { type: string }): SlackMapping {
  if (body.type === 'url_verification') {
    const challenge = str(body.challenge);
    return challenge
      ? { kind: 'challenge', challenge }
      : { kind: 'ignored', reason: 'url_verification without a challenge' };
  }
  if (body.type !== 'event_callback') return { kind: 'ignored', reason: `payload ${body.type}` };
  const event = body.event;
  if (!isObject(event)) return { kind: 'ignored', reason: 'event_callback without an event' };
  const type = str(event.type) ?? 'unknown';
  if (type !== 'message' && type !== 'app_mention') {
    return { kind: 'ignored', reason: `event ${type}` };
  }
  if (event.bot_id !== undefined || event.subtype === 'bot_message' || event.bot_profile) {
    return { kind: 'ignored', reason: 'bot message' };
  }
  const subtype = str(event.subtype);
  if (subtype !== undefined && !USER_SUBTYPES.has(subtype)) {
    return { kind: 'ignored', reason: `message subtype ${subtype}` };
  }
  if (event.edited !== undefined) return { kind: 'ignored', reason: 'edited message' };
  const channel = str(event.channel);
  const user = str(event.user);
  const ts = str(event.ts);
  const text = typeof event.text === 'string' ? event.text.replace(LEADING_MENTION, '').trim() : '';
  if (!channel || !user || !ts)
    return { kind: 'ignored', reason: 'message without channel, user or ts' };
  if (text === '') return { kind: 'ignored', reason: 'message without text' };
  const thread = str(event.thread_ts);
  const team = str(body.team_id) ?? str(event.team);
  return {
    kind: 'message',
    // `event.team` is the sender's workspace (another one in a shared channel), not the one the
    // app is installed in, so only the envelope's ids say whose event this is.
    workspace: { team: str(body.team_id), enterprise: str(body.enterprise_id) },
    // A thread is its own conversation; the channel's main timeline is another.
    conversationId: thread ? `${channel}:${thread}` : channel,
    user,
    text,
    eventId: [team, channel, ts].filter(Boolean).join(':'),
  };
}
