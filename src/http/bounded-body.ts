import type { Dispatcher } from 'undici';

export interface BodyText {
  text: string;
  /** The body was longer than the limit; `text` holds only its start. */
  truncated: boolean;
}

/**
 * Reads at most `limit` bytes of a response body, so a runaway upstream cannot exhaust memory.
 * A longer body is cancelled (its connection is dropped rather than drained).
 */
export async function readBoundedText(response: Response, limit: number): Promise<BodyText> {
  const declared = Number(response.headers.get('content-length'));
  if (response.body === null) return { text: '', truncated: false };
  if (Number.isFinite(declared) && declared > limit) {
    await response.body.cancel();
    return { text: '', truncated: true };
  }
  // undici types the stream loosely; a fetch body is always bytes.
  const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = limit - size;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      await reader.cancel();
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
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
 * The same bound for an undici response body (calls to model endpoints and tools): a body
 * declared or found longer than `limit` is destroyed, which drops its connection instead of
 * draining it. `bytes` holds at most `limit` bytes.
 */
export async function readBoundedBytes(
  response: Pick<Dispatcher.ResponseData, 'body' | 'headers'>,
  limit: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  const { body } = response;
  const length = response.headers['content-length'];
  const declared = Number(Array.isArray(length) ? length[0] : length);
  if (Number.isFinite(declared) && declared > limit) {
    discardBody(body);
    return { bytes: Buffer.alloc(0), truncated: true };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = chunk as Buffer;
    const room = limit - size;
    if (bytes.byteLength > room) {
      chunks.push(bytes.subarray(0, room));
      discardBody(body);
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(bytes);
    size += bytes.byteLength;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

/** readBoundedBytes as (lossy) UTF-8 text. */
export async function readBoundedBody(
  response: Pick<Dispatcher.ResponseData, 'body' | 'headers'>,
  limit: number,
): Promise<BodyText> {
  const { bytes, truncated } = await readBoundedBytes(response, limit);
  return { text: bytes.toString('utf8'), truncated };
}
