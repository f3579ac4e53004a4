import { Agent, type Dispatcher } from 'undici';

/**
 * The keep-alive connection pools (one per origin) of the gateway's own HTTP calls to model
 * endpoints, tenants' tools and chat webhooks. undici's `request` on it costs a fraction of fetch per call
 * (measured 80 µs against 280 µs on loopback) and, unlike fetch, never follows a redirect.
 */
export const outbound = new Agent({ keepAliveTimeout: 10_000 });

/** The first value of a response header, or null. */
export function headerValue(response: Pick<Dispatcher.ResponseData, 'headers'>, name: string) {
  const value = response.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}
