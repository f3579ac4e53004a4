import type { Dispatcher } from 'undici';
import { readBoundedBody } from '../../platform/http/bounded-body.js';
import { isEgressRefusal } from '../../platform/http/egress-agent.js';
import { idempotencyHeaders } from '../../platform/http/idempotency-key.js';
import { GATEWAY_USER_AGENT, headerValue } from '../../platform/http/outbound.js';
import { undici } from '../../platform/http/undici.js';
import { parseRetryAfter } from '../../providers/provider-retry.js';
import { webhookHeaders } from './webhook-signature.js';

/** One delivery attempt may take this long, connection and answer included. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** A receiver's answer is read this far (it only has to say yes). */
const ANSWER_BYTES = 4 * 1024;

/** What one POST of a run's webhook came to; `error` is a classified reason, stored for the tenant. */
export type SendOutcome =
  { ok: true } | { ok: false; retryable: boolean; retryAfterMs?: number; error: string };

export interface SignedPost {
  url: string;
  /** `webhook-id`, also the `Idempotency-Key`: the same on every attempt. */
  id: string;
  secret: string;
  payload: unknown;
  /** The tenant egress: every connection's address is checked by the policy tools obey. */
  dispatcher: () => Promise<Dispatcher>;
  /** More headers the payload's format asks for (an A2A notification's token). */
  headers?: Record<string, string>;
}

/**
 * POSTs a signed JSON payload to a tenant's URL. 2xx is delivered; 408, 429, 5xx, network errors
 * and timeouts may be retried (after the receiver's Retry-After when it sent one); other answers
 * and refused addresses will not change by retrying. Redirects are not followed.
 */
export async function sendSigned(post: SignedPost): Promise<SendOutcome> {
  const body = JSON.stringify(post.payload);
  const timeout = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  try {
    const { request } = await undici.load();
    const response = await request(post.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': GATEWAY_USER_AGENT,
        ...webhookHeaders(post.secret, post.id, body),
        ...idempotencyHeaders(post.id),
        ...post.headers,
      },
      body,
      signal: timeout,
      dispatcher: await post.dispatcher(),
    });
    const status = response.statusCode;
    await readBoundedBody(response, ANSWER_BYTES);
    if (status >= 200 && status < 300) return { ok: true };
    return {
      ok: false,
      retryable: status === 408 || status === 429 || status >= 500,
      retryAfterMs: parseRetryAfter(headerValue(response, 'retry-after')),
      error: `webhook answered HTTP ${status}`,
    };
  } catch (error) {
    if (timeout.aborted) {
      return {
        ok: false,
        retryable: true,
        error: `webhook did not answer within ${DELIVERY_TIMEOUT_MS} ms`,
      };
    }
    if (isEgressRefusal(error)) {
      return { ok: false, retryable: false, error: 'webhook address refused by the egress policy' };
    }
    return { ok: false, retryable: true, error: 'webhook unreachable' };
  }
}
