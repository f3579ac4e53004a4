import { describe, expect, it } from '@jest/globals';
import { Readable } from 'node:stream';
import { readBoundedBytes } from './bounded-body.js';

describe('readBoundedBytes', () => {
  /** An undici-like response: headers and a body stream. */
  const response = (chunks: string[], headers: Record<string, string> = {}) => {
    const body = Readable.from(chunks.map((chunk) => Buffer.from(chunk)));
    return { body, headers } as unknown as Parameters<typeof readBoundedBytes>[0];
  };

  it('reads a body within the limit whole', async () => {
    const result = await readBoundedBytes(response(['abc', 'def']), 6);
    expect({ text: result.bytes.toString(), truncated: result.truncated }).toEqual({
      text: 'abcdef',
      truncated: false,
    });
  });

  it('keeps only the first bytes of a longer body and destroys the stream', async () => {
    const res = response(['abcdefghij', 'klmnopqrst', 'never read']);
    const result = await readBoundedBytes(res, 15);
    expect(result.bytes.toString()).toBe('abcdefghijklmno');
    expect(result.truncated).toBe(true);
    expect(res.body.destroyed).toBe(true);
  });

  /** A body being read that has sent its first bytes and will send more. */
  const partlyRead = () => {
    const body = new Readable({ read() {} });
    const reading = readBoundedBytes(
      { body, headers: {} } as unknown as Parameters<typeof readBoundedBytes>[0],
      100,
    );
    body.push(Buffer.from('abc'));
    return { body, reading };
  };

  it('fails when the body fails part way', async () => {
    const { body, reading } = partlyRead();
    body.destroy(new Error('socket hang up'));
    await expect(reading).rejects.toThrow('socket hang up');
  });

  it('fails when the body closes before its end', async () => {
    const { body, reading } = partlyRead();
    body.destroy();
    await expect(reading).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('refuses a declared length over the limit without reading', async () => {
    const res = response(['x'.repeat(100)], { 'content-length': '100' });
    const result = await readBoundedBytes(res, 10);
    expect(result).toEqual({ bytes: Buffer.alloc(0), truncated: true });
    expect(res.body.destroyed).toBe(true);
  });
});
