import { describeNetworkError, quoteUpstream } from '../providers/provider-errors.js';
import { parseRetryAfter } from '../providers/provider-retry.js';
import { readBoundedBody } from '../platform/http/bounded-body.js';
import { isEgressRefusal } from '../platform/http/egress-agent.js';
import { idempotencyHeaders } from '../platform/http/idempotency-key.js';
import { GATEWAY_USER_AGENT, headerValue, operatorEgress } from '../platform/http/outbound.js';
import { undici } from '../platform/http/undici.js';
import { urlSecrets } from '../platform/logging/config-secrets.js';
import { SecretScrubber } from '../platform/logging/scrub-secrets.js';

/** One delivery attempt may take this long, connection and answer included. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Chat webhooks answer `ok` or a short error code; more is not worth reading. */
const ANSWER_BYTES = 4 * 1024;

/**
 * What one POST to a chat webhook came to. `error` is a classified reason ("webhook answered
 * HTTP 404"): it is stored as the entry's `last_error`, which the tenant reads, so it never
 * quotes the chat system or names the address (the address is the webhook's credential).
 * `upstream` is what the chat system or the socket said, scrubbed of the address, for the log.
 */
export type DeliveryOutcome =
  | { ok: true; status: number }
  | { ok: false; retryable: boolean; retryAfterMs?: number; error: string; upstream?: string };

export interface WebhookPost {
  /** Sent as `Idempotency-Key`: the same on every attempt of one delivery. */
  idempotencyKey?: string;
  timeoutMs?: number;
  /** More headers (the deployment's mark). */
  headers?: Record<string, string>;
}

/** Worth another attempt: rate limited, a server-side failure, or no answer at all. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * POSTs a JSON message to a chat system's incoming webhook. Redirects are not followed (the
 * address is a credential, and a redirect would hand the message to another host); 2xx is
 * delivered; 408, 429, 5xx, network errors and timeouts may be retried; other answers will not
 * change by retrying. An idempotency key goes out as `Idempotency-Key`, so a receiver can tell a
 * repeated delivery (a retry, or another replica's after a takeover) from a new message.
 */
export async function postWebhook(
  url: string,
  message: unknown,
  { idempotencyKey, timeoutMs = DELIVERY_TIMEOUT_MS, headers = {} }: WebhookPost = {},
): Promise<DeliveryOutcome> {
  const timeout = AbortSignal.timeout(timeoutMs);
  // Built only on failure: the address's secret parts (path, query, password) in every spelling.
  const quote = (text: string) =>
    quoteUpstream(text, new SecretScrubber(urlSecrets(url, { path: true })));
  try {
    const { request } = await undici.load();
    const response = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': GATEWAY_USER_AGENT,
        ...headers,
        ...idempotencyHeaders(idempotencyKey),
      },
      body: JSON.stringify(message),
      signal: timeout,
      dispatcher: await operatorEgress(),
    });
    const status = response.statusCode;
    const { text } = await readBoundedBody(response, ANSWER_BYTES);
    if (status >= 200 && status < 300) return { ok: true, status };
    return {
      ok: false,
      retryable: retryableStatus(status),
      retryAfterMs: parseRetryAfter(headerValue(response, 'retry-after')),
      error: `webhook answered HTTP ${status}`,
      upstream: quote(text) || undefined,
    };
  } catch (error) {
    if (timeout.aborted) {
      return { ok: false, retryable: true, error: `webhook did not answer within ${timeoutMs} ms` };
    }
    if (isEgressRefusal(error)) {
      // A link-local or metadata address: no retry will change that, only the configuration.
      return { ok: false, retryable: false, error: 'webhook address refused by the egress policy' };
    }
    return {
      ok: false,
      retryable: true,
      error: 'webhook unreachable',
      upstream: quote(describeNetworkError(error)),
    };
  }
}
