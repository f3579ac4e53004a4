import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a request's timestamp may be from our clock (Slack's own recommendation). */
export const SIGNATURE_TOLERANCE_S = 300;

const SIGNATURE = /^v0=[0-9a-f]{64}$/;
const TIMESTAMP = /^\d{1,12}$/;

/** `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}`: Slack's request signature. */
export function slackSignature(secret: string, timestamp: string, body: Buffer | string): string {
  const mac = createHmac('sha256', secret);
  mac.update(`v0:${timestamp}:`);
  mac.update(body);
  return `v0=${mac.digest('hex')}`;
}

export interface SignedRequest {
  signature?: string;
  timestamp?: string;
  /** The exact bytes received (empty when there was no body). */
  body: Buffer;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/**
 * Checks a Slack-style signature: the timestamp must be within SIGNATURE_TOLERANCE_S of `nowMs`
 * (either side) and the signature must match the body and that timestamp, compared in constant
 * time. A body replayed with a fresh timestamp fails, since the timestamp is signed too.
 */
export function verifySignature(
  secret: string,
  request: SignedRequest,
  nowMs = Date.now(),
): SignatureCheck {
  const { signature, timestamp, body } = request;
  if (!signature) return { ok: false, reason: 'the request signature is missing' };
  if (!timestamp) return { ok: false, reason: 'the request timestamp is missing' };
  if (!TIMESTAMP.test(timestamp)) {
    return { ok: false, reason: 'the request timestamp is not a number of seconds' };
  }
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_S) {
    return {
      ok: false,
      reason: `the request timestamp is more than ${SIGNATURE_TOLERANCE_S} s away from now`,
    };
  }
  const presented = signature.trim().toLowerCase();
  const expected = slackSignature(secret, timestamp, body);
  // Both sides have the same length once the format is checked, as timingSafeEqual requires.
  if (
    !SIGNATURE.test(presented) ||
    !timingSafeEqual(Buffer.from(presented), Buffer.from(expected))
  ) {
    return { ok: false, reason: 'the request signature does not match' };
  }
  return { ok: true };
}
