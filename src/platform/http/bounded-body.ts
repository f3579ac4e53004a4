import { finished } from 'node:stream';
import type { Dispatcher } from 'undici';

export interface BodyText {
  text: string;
  /** The body was longer than the limit; `text` holds only its start. */
  truncated: boolean;
}

/**
 * Drops an undici body without reading on (and its connection with it). Destroying emits an
 * abort error on the stream, which is expected here, so it is swallowed.
 */
export function discardBody(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * Reads at most `limit` bytes of an undici response body (model endpoints, tools, chat
 * webhooks), so a runaway upstream cannot exhaust memory: a body declared or found longer is
 * destroyed, which drops its connection instead of draining it.
 *
 * Read with a `data` listener and `finished` rather than `for await`: the stream's async
 * iterator costs a promise and an event-loop turn per chunk and another to see the end, about
 * 12 µs of a model call's answer at one request in flight (the answer is one chunk or two).
 */
export function readBoundedBytes(
  response: Pick<Dispatcher.ResponseData, 'body' | 'headers'>,
  limit: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  const { body } = response;
  const length = response.headers['content-length'];
  const declared = Number(Array.isArray(length) ? length[0] : length);
  if (Number.isFinite(declared) && declared > limit) {
    discardBody(body);
    return Promise.resolve({ bytes: Buffer.alloc(0), truncated: true });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const bytes = () => (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    // Ends on the body's end, its error or its early close (each as the iterator reported it).
    const stopWatching = finished(body, (error) => {
      body.off('data', onData);
      if (error) reject(error);
      else resolve({ bytes: bytes(), truncated: false });
    });
    const onData = (chunk: Buffer) => {
      const room = limit - size;
      if (chunk.byteLength > room) {
        chunks.push(chunk.subarray(0, room));
        stopWatching();
        body.off('data', onData);
        discardBody(body);
        resolve({ bytes: bytes(), truncated: true });
        return;
      }
      chunks.push(chunk);
      size += chunk.byteLength;
    };
    body.on('data', onData);
  });
}

/** readBoundedBytes as (lossy) UTF-8 text. */
export async function readBoundedBody(
  response: Pick<Dispatcher.ResponseData, 'body' | 'headers'>,
  limit: number,
): Promise<BodyText> {
  const { bytes, truncated } = await readBoundedBytes(response, limit);
  return { text: bytes.toString('utf8'), truncated };
}
