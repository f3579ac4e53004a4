import { Injectable } from '@nestjs/common';
import { type Attributes, type HrTime, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { ATTR_SVC_TENANT_ID } from './semconv.js';
import { type SpanDestination, Tracing } from './tracing.service.js';

type Primitive = string | number | boolean;

/** A finished span as an API answers it (times in ISO 8601, duration in milliseconds). */
export interface KeptSpan {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer';
  started_at: string;
  ended_at: string;
  duration_ms: number;
  status: 'unset' | 'ok' | 'error';
  /** Names, ids, counts and outcomes only: spans never carry prompts, results or secrets. */
  attributes: Record<string, Primitive | Primitive[]>;
}

/** Which trees of spans to read. */
export interface SpanTreeQuery {
  /** A span this accepts starts a tree. */
  isRoot: (span: { name: string; attributes: Attributes }) => boolean;
  /** Spans that start a tree even while they have not ended (so are not kept yet themselves). */
  rootSpans?: ReadonlyArray<{ traceId: string; spanId: string }>;
  /**
   * The tenant whose spans these are: a span that names another tenant (`svc.tenant.id`) is
   * left out with everything below it, wherever a trace wandered (a tool calling back into the
   * gateway for someone else).
   */
  tenantId: string;
}

const KINDS: Record<SpanKind, KeptSpan['kind']> = {
  [SpanKind.INTERNAL]: 'internal',
  [SpanKind.SERVER]: 'server',
  [SpanKind.CLIENT]: 'client',
  [SpanKind.PRODUCER]: 'producer',
  [SpanKind.CONSUMER]: 'consumer',
};

const STATUSES: Record<SpanStatusCode, KeptSpan['status']> = {
  [SpanStatusCode.UNSET]: 'unset',
  [SpanStatusCode.OK]: 'ok',
  [SpanStatusCode.ERROR]: 'error',
};

const millis = ([seconds, nanos]: HrTime): number => seconds * 1000 + nanos / 1e6;
const keyOf = (traceId: string, spanId: string): string => `${traceId}/${spanId}`;

function attributesOf(attributes: Attributes): KeptSpan['attributes'] {
  const view: KeptSpan['attributes'] = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null) continue;
    view[name] = Array.isArray(value)
      ? value.filter((item): item is Primitive => item !== undefined && item !== null)
      : value;
  }
  return view;
}

export function keptSpanOf(span: ReadableSpan): KeptSpan {
  const context = span.spanContext();
  const start = millis(span.startTime);
  const end = millis(span.endTime);
  return {
    trace_id: context.traceId,
    span_id: context.spanId,
    parent_span_id: span.parentSpanContext?.spanId ?? null,
    name: span.name,
    kind: KINDS[span.kind] ?? 'internal',
    started_at: new Date(start).toISOString(),
    ended_at: new Date(end).toISOString(),
    duration_ms: Math.round(millis(span.duration) * 1000) / 1000,
    status: STATUSES[span.status.code] ?? 'unset',
    attributes: attributesOf(span.attributes),
  };
}

/**
 * The finished spans this replica keeps in memory (the ring of Tracing, when no collector is
 * configured), read as trees: what a feature needs to show the spans of one piece of work.
 * Bounded by the ring (2,000 spans); empty when spans go to a collector or tracing is off.
 */
@Injectable()
export class KeptSpans {
  constructor(private readonly tracing: Tracing) {}

  /** Where this replica's spans go: only `memory` keeps any to read. */
  get destination(): SpanDestination {
    return this.tracing.spanDestination;
  }

  /** The spans that start a tree of `query` and every kept span below them, by start time. */
  trees(query: SpanTreeQuery): KeptSpan[] {
    const spans = this.tracing.recentSpans();
    const children = new Map<string, ReadableSpan[]>();
    const found = new Map<string, ReadableSpan>();
    const queue: string[] = (query.rootSpans ?? []).map((root) => keyOf(root.traceId, root.spanId));
    const foreign = (span: ReadableSpan): boolean => {
      const tenant = span.attributes[ATTR_SVC_TENANT_ID];
      return tenant !== undefined && tenant !== query.tenantId;
    };
    for (const span of spans) {
      const context = span.spanContext();
      const parent = span.parentSpanContext;
      if (parent) {
        const key = keyOf(parent.traceId, parent.spanId);
        children.set(key, [...(children.get(key) ?? []), span]);
      }
      if (!foreign(span) && query.isRoot(span)) {
        const key = keyOf(context.traceId, context.spanId);
        found.set(key, span);
        queue.push(key);
      }
    }
    const visited = new Set<string>();
    while (queue.length > 0) {
      const key = queue.pop() as string;
      if (visited.has(key)) continue;
      visited.add(key);
      for (const child of children.get(key) ?? []) {
        if (foreign(child)) continue;
        const context = child.spanContext();
        const childKey = keyOf(context.traceId, context.spanId);
        found.set(childKey, child);
        queue.push(childKey);
      }
    }
    return [...found.values()]
      .sort((a, b) => millis(a.startTime) - millis(b.startTime))
      .map(keptSpanOf);
  }
}
