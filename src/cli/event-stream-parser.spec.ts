import { describe, expect, it } from '@jest/globals';
import { type ServerSentEvent, parseEventBlock, readEventStream } from './event-stream-parser.js';

async function read(chunks: Array<string | Uint8Array>): Promise<ServerSentEvent[]> {
  const encoder = new TextEncoder();
  const body = chunks.map((chunk) => (typeof chunk === 'string' ? encoder.encode(chunk) : chunk));
  const events: ServerSentEvent[] = [];
  for await (const event of readEventStream(toAsync(body))) events.push(event);
  return events;
}

/** The chunks as a response body delivers them: one at a time, asynchronously. */
function toAsync(chunks: Uint8Array[]): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => {
      let index = 0;
      return {
        next: () =>
          Promise.resolve(
            index < chunks.length
              ? { value: chunks[index++], done: false }
              : { value: undefined, done: true },
          ),
      };
    },
  };
}

describe('reading text/event-stream', () => {
  it('parses id, event and data lines, skipping comments and retry', () => {
    expect(parseEventBlock('id: 7\nevent: tool.started\ndata: {"a":1}')).toEqual({
      id: '7',
      event: 'tool.started',
      data: '{"a":1}',
    });
    expect(parseEventBlock('data: one\ndata: two')).toEqual({ event: 'message', data: 'one\ntwo' });
    expect(parseEventBlock(': ping')).toBeNull();
    expect(parseEventBlock('retry: 2000')).toBeNull();
  });

  it('assembles events across chunks, CRLF split between them, and drops a cut-off block', async () => {
    const events = await read([
      'retry: 2000\n\nid: 1\nevent: a\nda',
      'ta: {"x":1}\n\n: ping\n\nid: 2\r',
      '\nevent: b\r\ndata: 2\r\n\r\n',
      'id: 3\nevent: c\ndata: cut',
    ]);
    expect(events).toEqual([
      { id: '1', event: 'a', data: '{"x":1}' },
      { id: '2', event: 'b', data: '2' },
    ]);
  });

  it('decodes UTF-8 split inside a character', async () => {
    const bytes = new TextEncoder().encode('data: → ok\n\n');
    const events = await read([bytes.slice(0, 7), bytes.slice(7)]);
    expect(events).toEqual([{ event: 'message', data: '→ ok' }]);
  });
});
