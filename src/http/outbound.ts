import { Agent } from 'undici';

/**
 * The keep-alive connection pools (one per origin) of the gateway's own HTTP calls to model
 * endpoints and tenants' tools. undici's `request` on it costs a fraction of fetch per call
 * (measured 80 µs against 280 µs on loopback) and, unlike fetch, never follows a redirect.
 */
export const outbound = new Agent({ keepAliveTimeout: 10_000 });
