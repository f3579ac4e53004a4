import { describe, expect, it } from '@jest/globals';
import { type Attributes, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { KeptSpans } from './kept-spans.js';
import type { Tracing } from './tracing.service.js';

const TRACE = 'a'.repeat(32);

/** A finished span of trace TRACE: `id` is its span id, started `at` seconds in. */
function span(
  id: string,
  parent: string | null,
  attributes: Attributes = {},
  at = 0,
): ReadableSpan {
  return {
    name: `span ${id}`,
    kind: SpanKind.INTERNAL,
    spanContext: () => ({ traceId: TRACE, spanId: id, traceFlags: 1 }),
    parentSpanContext: parent ? { traceId: TRACE, spanId: parent, traceFlags: 1 } : undefined,
    startTime: [1_800_000_000 + at, 0],
    endTime: [1_800_000_000 + at, 5_000_000],
    duration: [0, 5_000_000],
    status: { code: SpanStatusCode.UNSET },
    attributes,
  } as unknown as ReadableSpan;
}

const kept = (spans: ReadableSpan[], destination = 'memory') =>
  new KeptSpans({ recentSpans: () => spans, spanDestination: destination } as unknown as Tracing);

const ids = (found: Array<{ span_id: string }>) => found.map((s) => s.span_id);

describe('KeptSpans', () => {
  const ring = [
    span('c1', 'r1', {}, 2),
    span('g1', 'c1', { 'svc.tenant.id': 'acme' }, 3),
    span('x1', 'c1', { 'svc.tenant.id': 'beta' }, 4),
    span('x2', 'x1', {}, 5),
    span('r1', 'http', { run: 'one', 'svc.tenant.id': 'acme' }, 1),
    span('http', null, {}, 0),
    span('o1', 'http', { run: 'two' }, 6),
  ];
  const isRoot = ({ attributes }: { attributes: Attributes }) => attributes.run === 'one';

  it('reads the roots and everything below them, by start time, leaving other tenants out', () => {
    const found = kept(ring).trees({ tenantId: 'acme', isRoot });
    expect(ids(found)).toEqual(['r1', 'c1', 'g1']);
    expect(found[0]).toMatchObject({
      trace_id: TRACE,
      parent_span_id: 'http',
      name: 'span r1',
      kind: 'internal',
      status: 'unset',
      duration_ms: 5,
      started_at: new Date(1_800_000_001_000).toISOString(),
      attributes: { run: 'one', 'svc.tenant.id': 'acme' },
    });
  });

  it('finds the children of a root that has not ended (so is not kept) by its id', () => {
    const running = ring.filter((s) => s.spanContext().spanId !== 'r1');
    const found = kept(running).trees({
      tenantId: 'acme',
      isRoot: () => false,
      rootSpans: [{ traceId: TRACE, spanId: 'r1' }],
    });
    expect(ids(found)).toEqual(['c1', 'g1']);
    // The same span id in another trace is another span.
    const elsewhere = kept(running).trees({
      tenantId: 'acme',
      isRoot: () => false,
      rootSpans: [{ traceId: 'b'.repeat(32), spanId: 'r1' }],
    });
    expect(elsewhere).toEqual([]);
  });

  it('says where spans go', () => {
    expect(kept([], 'collector').destination).toBe('collector');
  });
});
