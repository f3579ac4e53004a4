/** One server-sent event as a client receives it. */
export interface ReceivedEvent {
  id?: string;
  /** The reconnection delay the event set (a priming event's `retry:`). */
  retry?: number;
  event: string;
  data: string;
  /** `data` parsed as JSON (undefined when it is not). */
  json?: unknown;
  /** ms since the request was sent. */
  receivedAfterMs: number;
}

export interface SseResult {
  status: number;
  headers: Headers;
  events: ReceivedEvent[];
  /** The problem body when the answer was not a stream. */
  body?: unknown;
  /** The id of the last event with one (what a client sends as Last-Event-ID). */
  lastEventId?: string;
  /** Comment lines received (heartbeats). */
  comments: number;
}

export interface SseOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  /** Stop reading (and close the connection) once this answers true for an event. */
  until?: (event: ReceivedEvent, all: ReceivedEvent[]) => boolean;
  /** Called for every event as it arrives. */
  onEvent?: (event: ReceivedEvent) => void;
  /** Called with the number of comment lines (heartbeats) so far, after each block. */
  onComment?: (comments: number) => void;
  /** Stop reading once this answers true after a comment block (a heartbeat seen). */
  untilComment?: (comments: number, events: ReceivedEvent[]) => boolean;
  timeoutMs?: number;
}

/**
 * A minimal text/event-stream client over fetch: reads the stream as it arrives, parses the
 * HTML standard's event format (id, event, data, comments), and stops at `until`, at the end of
 * the stream, or at the timeout (which fails the read).
 */
export async function readEvents(url: string, options: SseOptions = {}): Promise<SseResult> {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error('SSE read timed out')),
    options.timeoutMs ?? 30_000,
  );
  try {
    const response = await fetch(url, {
      method: options.method ?? 'GET',
      headers: {
        accept: 'text/event-stream',
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: controller.signal,
    });
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream')) {
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the text
      }
      return { status: response.status, headers: response.headers, events: [], body, comments: 0 };
    }
    const events: ReceivedEvent[] = [];
    let lastEventId: string | undefined;
    let comments = 0;
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = response.body!.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value as Uint8Array, { stream: true });
      let end: number;
      let stop = false;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const commented = block.split('\n').filter((line) => line.startsWith(':')).length;
        comments += commented;
        options.onComment?.(comments);
        if (commented > 0 && options.untilComment?.(comments, events)) {
          stop = true;
          break;
        }
        const event = parseBlock(block, started);
        if (!event) continue;
        if (event.id !== undefined) lastEventId = event.id;
        events.push(event);
        options.onEvent?.(event);
        if (options.until?.(event, events)) {
          stop = true;
          break;
        }
      }
      if (stop) {
        await reader.cancel().catch(() => undefined);
        controller.abort();
        break;
      }
    }
    return { status: response.status, headers: response.headers, events, lastEventId, comments };
  } finally {
    clearTimeout(timer);
  }
}

function parseBlock(block: string, started: number): ReceivedEvent | null {
  let id: string | undefined;
  let retry: number | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  const text = data.join('\n');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    id,
    ...(retry === undefined ? {} : { retry }),
    event,
    data: text,
    json,
    receivedAfterMs: performance.now() - started,
  };
}
