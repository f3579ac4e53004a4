import type { FetchLike } from '@modelcontextprotocol/client';
import { type Dispatcher, fetch as undiciFetch } from 'undici';
import { GATEWAY_USER_AGENT } from '../../platform/http/outbound.js';

/** Statuses whose Response may not have a body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A response body that went past its bound; the stream fails with it. */
export class UpstreamResponseTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the upstream answered more than ${limit} bytes`);
    this.name = 'UpstreamResponseTooLarge';
  }
}

/** Passes at most `limit` bytes of a body on, then fails the stream. */
function bounded(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(new UpstreamResponseTooLarge(limit));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/** Headers of any spelling fetch accepts, as a plain record (undici's own fetch is stricter). */
function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  return Object.fromEntries(new Headers(headers).entries());
}

/**
 * The `fetch` the MCP client transport uses for an upstream: every connection goes through
 * `dispatcher` (TenantEgress: each address checked by the egress policy, so SSRF protection
 * holds for redirects and re-resolved names too), every response body is cut off past
 * `maxBytes`, and the gateway names itself.
 */
export function egressFetch(dispatcher: Dispatcher, maxBytes: number): FetchLike {
  return async (url, init = {}) => {
    const headers = headerRecord(init.headers);
    headers['user-agent'] ??= GATEWAY_USER_AGENT;
    const response = await undiciFetch(url, {
      method: init.method,
      headers,
      body: init.body as string | undefined,
      signal: init.signal ?? undefined,
      redirect: init.redirect,
      dispatcher,
    });
    const body = NULL_BODY_STATUSES.has(response.status)
      ? null
      : (response.body as ReadableStream<Uint8Array> | null);
    return new Response(body && bounded(body, maxBytes), {
      status: response.status,
      statusText: response.statusText,
      headers: headerRecord(response.headers),
    });
  };
}
