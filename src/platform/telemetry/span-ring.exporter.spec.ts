import { describe, expect, it } from '@jest/globals';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { SpanRing } from './span-ring.exporter.js';

const span = (name: string) => ({ name }) as ReadableSpan;
const names = (ring: SpanRing) => ring.recent().map((s) => s.name);

describe('SpanRing', () => {
  it('keeps the last spans up to its capacity, oldest first', () => {
    const ring = new SpanRing(3);
    const results: number[] = [];
    ring.export([span('a'), span('b')], (result) => results.push(result.code));
    expect(names(ring)).toEqual(['a', 'b']);
    ring.export([span('c'), span('d'), span('e')], (result) => results.push(result.code));
    expect(names(ring)).toEqual(['c', 'd', 'e']);
    ring.export([span('f')], () => undefined);
    expect(names(ring)).toEqual(['d', 'e', 'f']);
    expect(results).toEqual([0, 0]); // ExportResultCode.SUCCESS
  });
});
