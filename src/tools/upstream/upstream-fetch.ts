import type { FetchLike } from '@modelcontextprotocol/client';
import type { Dispatcher, fetch as undiciFetch } from 'undici';
import { GATEWAY_USER_AGENT } from '../../platform/http/outbound.js';
import { undici } from '../../platform/http/undici.js';

/** Statuses whose Response may not have a body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A response body that went past its bound; the stream fails with it. */
export class UpstreamResponseTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the upstream answered more than ${limit} bytes`);
    this.name = 'UpstreamResponseTooLarge';
  }
}

/**
 * Passes at most `limit` bytes of a body on, then fails the stream; `ended` is called once the
 * body is over, however it ends (read to its end, cut off, failed, or cancelled by its reader).
 */
function bounded(
  body: ReadableStream<Uint8Array>,
  limit: number,
  ended: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let seen = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) {
          ended();
          controller.close();
          return;
        }
        seen += value.byteLength;
        if (seen <= limit) return controller.enqueue(value);
        ended();
        controller.error(new UpstreamResponseTooLarge(limit));
        await reader.cancel().catch(() => undefined);
      } catch (error) {
        ended();
        controller.error(error);
      }
    },
    cancel(reason) {
      ended();
      return reader.cancel(reason);
    },
  });
}

/** Exchanges in flight under each caller signal, which one listener per signal aborts. */
const inFlight = new WeakMap<AbortSignal, Set<AbortController>>();

/**
 * A signal of the request's own that follows `signal`, and the way to stop following it. The
 * MCP client hands every request its connection's signal, which lives as long as the
 * connection; undici would hang a listener on it per request that only garbage collection takes
 * off again (thousands at once on a busy shared connection). Here the connection's signal gets
 * one listener, for all its exchanges, and an exchange leaves the set when it ends.
 */
function requestSignal(signal: AbortSignal | null | undefined) {
  const controller = new AbortController();
  if (!signal || signal.aborted) {
    if (signal) controller.abort(signal.reason);
    return { signal: signal ? controller.signal : undefined, release: () => undefined };
  }
  let exchanges = inFlight.get(signal);
  if (!exchanges) {
    const created = new Set<AbortController>();
    signal.addEventListener(
      'abort',
      () => {
        for (const exchange of created) exchange.abort(signal.reason);
        created.clear();
      },
      { once: true },
    );
    inFlight.set(signal, created);
    exchanges = created;
  }
  const set = exchanges;
  set.add(controller);
  return { signal: controller.signal, release: () => set.delete(controller) };
}

/** Headers of any spelling fetch accepts, as a plain record (undici's own fetch is stricter). */
function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  return Object.fromEntries(new Headers(headers).entries());
}

/**
 * The `fetch` the MCP and A2A clients use for a tenant's server: every connection goes through
 * `dispatcher()` (TenantEgress: each address checked by the egress policy, so SSRF protection
 * holds for redirects and re-resolved names too), every response body is cut off past
 * `maxBytes`, and the gateway names itself and marks the call as this deployment's (`marked`).
 */
export function egressFetch(
  dispatcher: () => Promise<Dispatcher>,
  maxBytes: number,
  marked: () => Promise<Record<string, string>>,
): FetchLike {
  return async (url, init = {}) => {
    const headers = { ...headerRecord(init.headers), ...(await marked()) };
    headers['user-agent'] ??= GATEWAY_USER_AGENT;
    const linked = requestSignal(init.signal);
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      const { fetch } = await undici.load();
      response = await fetch(url, {
        method: init.method,
        headers,
        body: init.body as string | undefined,
        signal: linked.signal,
        redirect: init.redirect,
        dispatcher: await dispatcher(),
      });
    } catch (error) {
      linked.release();
      throw error;
    }
    const body = NULL_BODY_STATUSES.has(response.status)
      ? null
      : (response.body as ReadableStream<Uint8Array> | null);
    if (!body) linked.release();
    return new Response(body && bounded(body, maxBytes, linked.release), {
      status: response.status,
      statusText: response.statusText,
      headers: headerRecord(response.headers),
    });
  };
}
