import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { slackSignature, verifySignature } from './webhook-signature.js';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const NOW_MS = 1_531_420_618_000;
const TS = String(NOW_MS / 1000);
const BODY = Buffer.from('{"type":"event_callback","event_id":"Ev1"}');

describe('slackSignature', () => {
  it('is v0= and the hex HMAC-SHA256 of v0:{timestamp}:{body}', () => {
    const expected = createHmac('sha256', SECRET)
      .update(`v0:${TS}:${BODY.toString()}`)
      .digest('hex');
    expect(slackSignature(SECRET, TS, BODY)).toBe(`v0=${expected}`);
    expect(slackSignature(SECRET, TS, BODY.toString())).toBe(`v0=${expected}`);
  });
});

describe('verifySignature', () => {
  const signed = { signature: slackSignature(SECRET, TS, BODY), timestamp: TS, body: BODY };

  it('accepts a correct signature within the window, on either side of now', () => {
    expect(verifySignature(SECRET, signed, NOW_MS)).toEqual({ ok: true });
    expect(verifySignature(SECRET, signed, NOW_MS + 299_000)).toEqual({ ok: true });
    expect(verifySignature(SECRET, signed, NOW_MS - 299_000)).toEqual({ ok: true });
    const upper = { ...signed, signature: signed.signature.toUpperCase().replace('V0=', 'v0=') };
    expect(verifySignature(SECRET, upper, NOW_MS)).toEqual({ ok: true });
  });

  it('refuses a stale or future timestamp', () => {
    expect(verifySignature(SECRET, signed, NOW_MS + 301_000)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('300 s'),
    });
    expect(verifySignature(SECRET, signed, NOW_MS - 301_000).ok).toBe(false);
  });

  it('refuses a wrong secret, a changed body and a body replayed with a fresh timestamp', () => {
    expect(verifySignature('another-secret', signed, NOW_MS).ok).toBe(false);
    const changed = { ...signed, body: Buffer.from(`${BODY.toString()} `) };
    expect(verifySignature(SECRET, changed, NOW_MS)).toEqual({
      ok: false,
      reason: 'the request signature does not match',
    });
    const later = String(Number(TS) + 600);
    const replayed = { ...signed, timestamp: later };
    expect(verifySignature(SECRET, replayed, (Number(later) + 1) * 1000).ok).toBe(false);
  });

  it('refuses missing and malformed headers', () => {
    const check = (request: Partial<typeof signed>) =>
      verifySignature(SECRET, { body: BODY, ...request }, NOW_MS);
    expect(check({ timestamp: TS })).toEqual({
      ok: false,
      reason: 'the request signature is missing',
    });
    expect(check({ signature: signed.signature })).toEqual({
      ok: false,
      reason: 'the request timestamp is missing',
    });
    expect(check({ ...signed, timestamp: '12.5' }).ok).toBe(false);
    expect(check({ ...signed, timestamp: '-1' }).ok).toBe(false);
    expect(check({ ...signed, signature: 'v1=abc' }).ok).toBe(false);
    expect(check({ ...signed, signature: signed.signature.slice(0, -1) }).ok).toBe(false);
    expect(check({ ...signed, signature: signed.signature.slice(3) }).ok).toBe(false);
  });
});
