/** One server-sent event as received (the HTML standard's `text/event-stream`). */
export interface ServerSentEvent {
  /** The event's `id:`, when it has one (an `error` event has none). */
  id?: string;
  /** `event:`, `message` when absent. */
  event: string;
  /** The `data:` lines, joined by newlines. */
  data: string;
}

/**
 * Parses one block (the lines between two blank lines); null for a block without data: a
 * comment (the gateway's heartbeat) or a `retry:` line.
 */
export function parseEventBlock(block: string): ServerSentEvent | null {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  return { ...(id !== undefined ? { id } : {}), event, data: data.join('\n') };
}

/**
 * The events of a `text/event-stream` body as they arrive. It ends when the body ends (a
 * block cut off by the end is dropped: the stream broke inside it) and throws what reading the
 * body throws (the connection was cut).
 */
export async function* readEventStream(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  // A CR at a chunk's end may be the first half of a CRLF: held until the next chunk.
  let carry = '';
  for await (const chunk of body) {
    let text = carry + decoder.decode(chunk, { stream: true });
    carry = text.endsWith('\r') ? '\r' : '';
    if (carry) text = text.slice(0, -1);
    buffer += text.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = parseEventBlock(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (event) yield event;
    }
  }
}
