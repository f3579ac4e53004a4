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
