import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** How long a client whose MCP stream ended waits before it reconnects (the `retry` field). */
export const SSE_RETRY_MS = 1000;

/**
 * The event an MCP SSE stream opens with (SEP-1699): its id and the reconnection delay, and an
 * empty `data` (a client hears nothing, but knows the stream is live and how to come back).
 */
export function primingFrame(id: string, retryMs = SSE_RETRY_MS): string {
  return `id: ${id}\nretry: ${retryMs}\ndata: \n\n`;
}

function headerValue(headers: OutgoingHttpHeaders | readonly unknown[] | undefined, name: string) {
  if (headers === undefined || Array.isArray(headers)) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return String(value);
  }
  return undefined;
}

function isEventStream(contentType: string | undefined): boolean {
  return contentType?.toLowerCase().startsWith('text/event-stream') === true;
}

/**
 * `response` with `frame` sent before anything else when it is an event stream (a
 * fetch-shaped answer: the 2026-07-28 handler's). Cancelling the new body cancels the old.
 */
export function primedResponse(response: Response, frame: () => string): Response {
  const body = response.body;
  if (body === null || !isEventStream(response.headers.get('content-type') ?? undefined)) {
    return response;
  }
  const first = new TextEncoder().encode(frame());
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>({
    start: (controller) => controller.enqueue(first),
  });
  void body.pipeTo(writable).catch(() => undefined);
  return new Response(readable, { status: response.status, headers: response.headers });
}

/**
 * Sends `frame()` first on `res` if the answer written to it turns out to be an event stream of
 * unknown length (the SDK's Node transport writes status and headers in one `writeHead`, then
 * the body): the session GET stream, which the SDK opens without a priming event.
 */
export function primeNodeEventStream(res: ServerResponse, frame: () => string): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  const patched = (...args: unknown[]): ServerResponse => {
    res.writeHead = writeHead;
    const result = writeHead(...args);
    const headers = args.find((arg) => arg !== null && typeof arg === 'object') as
      OutgoingHttpHeaders | undefined;
    const type = headerValue(headers, 'content-type') ?? res.getHeader('content-type');
    const length = headerValue(headers, 'content-length') ?? res.getHeader('content-length');
    if (isEventStream(type === undefined ? undefined : String(type)) && length === undefined) {
      res.write(frame());
    }
    return result;
  };
  res.writeHead = patched;
}
