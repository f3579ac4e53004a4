import { describe, expect, it } from '@jest/globals';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { SpanRing } from './span-ring.processor.js';

const span = (name: string, traceFlags = 1) =>
  ({ name, spanContext: () => ({ traceFlags }) }) as unknown as ReadableSpan;
const names = (ring: SpanRing) => ring.recent().map((s) => s.name);

describe('SpanRing', () => {
  it('keeps the last sampled spans up to its capacity, oldest first', () => {
    const ring = new SpanRing(3);
    for (const name of ['a', 'b']) ring.onEnd(span(name));
    expect(names(ring)).toEqual(['a', 'b']);
    for (const name of ['c', 'd', 'e']) ring.onEnd(span(name));
    expect(names(ring)).toEqual(['c', 'd', 'e']);
    ring.onEnd(span('f'));
    expect(names(ring)).toEqual(['d', 'e', 'f']);
  });

  it('keeps no span that was not sampled', () => {
    const ring = new SpanRing(3);
    ring.onEnd(span('kept'));
    ring.onEnd(span('dropped', 0));
    expect(names(ring)).toEqual(['kept']);
  });
});
