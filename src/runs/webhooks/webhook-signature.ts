import { createHmac } from 'node:crypto';

/**
 * The Standard Webhooks signature (standardwebhooks.com): `v1,` and the base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}` under the secret. A receiver recomputes it from the three headers
 * and the raw body, and rejects timestamps too far from its clock.
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The headers of one signed delivery (`timestamp` in seconds). */
export function webhookHeaders(
  secret: string,
  id: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, id, timestamp, body),
  };
}
