import request from 'supertest';
import { slackSignature } from '../../src/messaging/webhook-signature.js';

export const WEBHOOK = '/v1/messaging/webhook';

let sequence = 0;

/** A Slack `event_callback` carrying a person's `message` event. */
export function slackMessage(
  text: string,
  options: { channel?: string; user?: string; ts?: string; eventId?: string } = {},
) {
  const ts = options.ts ?? `1700000000.${String(++sequence).padStart(6, '0')}`;
  return {
    token: 'verification-token',
    team_id: 'T000',
    api_app_id: 'A000',
    type: 'event_callback',
    event_id: options.eventId ?? `Ev${ts.replace('.', '')}`,
    event_time: 1700000000,
    event: {
      type: 'message',
      channel: options.channel ?? 'C0GENERAL',
      user: options.user ?? 'U0ALICE',
      text,
      ts,
      channel_type: 'channel',
    },
  };
}

export interface SignOptions {
  /** Seconds since the epoch; now by default. */
  timestamp?: number;
  /** Slack's header names (default) or the neutral X-Signature / X-Timestamp. */
  headers?: 'slack' | 'neutral';
  /** Sign with this secret instead. */
  secret?: string;
}

/** Headers that sign `body` (the exact string sent) like Slack does. */
export function signatureHeaders(
  secret: string,
  body: string,
  options: SignOptions = {},
): Record<string, string> {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = slackSignature(options.secret ?? secret, timestamp, body);
  return options.headers === 'neutral'
    ? { 'X-Signature': signature, 'X-Timestamp': timestamp }
    : { 'X-Slack-Signature': signature, 'X-Slack-Request-Timestamp': timestamp };
}

/** POSTs `payload` to the webhook signed with `secret` (the body is sent byte for byte). */
export function postSigned(
  url: string,
  secret: string,
  payload: unknown,
  options: SignOptions & { query?: string } = {},
): request.Test {
  const body = JSON.stringify(payload);
  return request(url)
    .post(`${WEBHOOK}${options.query ?? ''}`)
    .set('Content-Type', 'application/json')
    .set(signatureHeaders(secret, body, options))
    .send(body);
}
