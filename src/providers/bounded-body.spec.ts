import { describe, expect, it } from '@jest/globals';
import { readBoundedText } from './bounded-body.js';

describe('readBoundedText', () => {
  it('stops reading a streamed body at the limit', async () => {
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('abcdefghij'));
      },
    });
    const result = await readBoundedText(new Response(stream), 25);
    expect(result).toEqual({ text: 'abcdefghijabcdefghijabcde', truncated: true });
  });
});
