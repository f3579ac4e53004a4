import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';

/**
 * Where spans go without an OTLP collector: the last `capacity` finished (sampled) spans, oldest
 * dropped first, so memory stays bounded however long the process runs (the SDK's
 * InMemorySpanExporter keeps every span). A processor rather than an exporter behind the SDK's
 * SimpleSpanProcessor: a span is kept where it ends, with no export call, promise or context
 * switch per span. Meant for debugging and tests, not as a trace store.
 */
export class SpanRing implements SpanProcessor {
  private readonly slots: Array<ReadableSpan | undefined> = [];
  private next = 0;
  private size = 0;

  constructor(readonly capacity = 2000) {}

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & 1) === 0) return; // not sampled
    this.slots[this.next] = span;
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /** The spans kept, oldest first. */
  recent(): ReadableSpan[] {
    const start = (this.next - this.size + this.capacity) % this.capacity;
    const spans: ReadableSpan[] = [];
    for (let i = 0; i < this.size; i++) {
      const span = this.slots[(start + i) % this.capacity];
      if (span) spans.push(span);
    }
    return spans;
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
