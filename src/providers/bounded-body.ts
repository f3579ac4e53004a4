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
