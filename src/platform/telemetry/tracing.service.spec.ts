import { describe, expect, it } from '@jest/globals';
import { context } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../config/gateway-config.js';
import { loadConfig } from '../config/load-config.js';
import { ProblemException } from '../http/problem.js';
import { Tracing } from './tracing.service.js';

function tracing(env: Record<string, string> = {}): Tracing {
  const config = loadConfig(env);
  return new Tracing(new ConfigService<GatewayConfig, true>(config));
}

describe('Tracing', () => {
  it('nests spans across awaits and keeps them in memory without a collector (not statements)', async () => {
    const t = tracing();
    const traceId = await t.inSpan({ name: 'outer', root: true }, async (outer) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      await t.inSpan({ name: 'inner' }, () =>
        t.inChildSpan({ name: 'statement' }, () => Promise.resolve()),
      );
      expect(t.activeTraceId()).toBe(outer.spanContext().traceId);
      return outer.spanContext().traceId;
    });
    const [inner, outer] = t.recentSpans();
    expect([inner.name, outer.name]).toEqual(['inner', 'outer']);
    expect(inner.spanContext().traceId).toBe(traceId);
    expect(inner.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(t.activeTraceId()).toBeNull();
    await t.onApplicationShutdown();
  });

  it('makes no root spans for child-only work', async () => {
    const t = tracing();
    await t.inChildSpan({ name: 'background' }, () => Promise.resolve());
    expect(t.recentSpans()).toEqual([]);
    await t.onApplicationShutdown();
  });

  it('marks a span failed with the error type only, and rethrows', async () => {
    const t = tracing();
    const failing = t.inSpan({ name: 'fails', root: true }, () =>
      Promise.reject(new ProblemException(502, 'upstream said: secret prompt', 'provider-failed')),
    );
    await expect(failing).rejects.toThrow('secret prompt');
    const [span] = t.recentSpans();
    expect(span.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(span.status.message).toBeUndefined();
    expect(span.attributes['error.type']).toBe('provider-failed');
    expect(span.events).toEqual([]);
    await t.onApplicationShutdown();
  });

  it('samples as OTEL_TRACES_SAMPLER says, and a sampled-out root keeps its children out', async () => {
    const samplers: Array<Record<string, string>> = [
      { OTEL_TRACES_SAMPLER: 'always_off' },
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
    ];
    for (const env of samplers) {
      const t = tracing(env);
      await t.inSpan({ name: 'root', root: true }, () =>
        t.inSpan({ name: 'child' }, () => Promise.resolve()),
      );
      expect({ env, spans: t.recentSpans().length }).toEqual({ env, spans: 0 });
      await t.onApplicationShutdown();
    }
    const all = tracing({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' });
    await all.inSpan({ name: 'root', root: true }, () => Promise.resolve());
    expect(all.recentSpans().map((span) => span.name)).toEqual(['root']);
    await all.onApplicationShutdown();
  });

  it('keeps in memory only the trees below a root span (what /v1/runs/{id}/spans can read)', async () => {
    const t = tracing();
    const seen = await t.inSpan({ name: 'tool call outside a run' }, async (span) => {
      await t.inSpan({ name: 'nested' }, () => Promise.resolve());
      return span.isRecording();
    });
    expect(seen).toBe(false);
    expect(t.recentSpans()).toEqual([]);
    await t.inSpan({ name: 'run', root: true }, () =>
      t.inSpan({ name: 'tool call in a run' }, () => Promise.resolve()),
    );
    expect(t.recentSpans().map((span) => span.name)).toEqual(['tool call in a run', 'run']);
    await t.onApplicationShutdown();
  });

  it('places a request in its trace without recording its span in memory', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const t = tracing();
    const started = t.startServerSpan({ name: 'GET' }, { traceparent })!;
    expect(started.span.isRecording()).toBe(false);
    const ids = started.span.spanContext();
    expect(ids.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(ids.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(ids.spanId).not.toBe('b7ad6b7169203331');
    expect(ids.traceFlags).toBe(1);
    const run = await context.with(started.context, () =>
      t.inSpan({ name: 'run', root: true }, (span) => Promise.resolve(span)),
    );
    expect(t.recentSpans()).toEqual([run]);
    expect((run as unknown as ReadableSpan).parentSpanContext?.spanId).toBe(ids.spanId);
    const fresh = t.startServerSpan({ name: 'GET' }, {})!.span.spanContext();
    expect(fresh.traceId).toMatch(/^[0-9a-f]{32}$/);
    await t.onApplicationShutdown();
  });

  it('runs work untraced with OTEL_SDK_DISABLED=true', async () => {
    const t = tracing({ OTEL_SDK_DISABLED: 'true' });
    const traceId = await t.inSpan({ name: 'run' }, (span) =>
      Promise.resolve(span.spanContext().traceId),
    );
    expect(traceId).toBe('00000000000000000000000000000000');
    expect(t.activeTraceId()).toBeNull();
    expect(t.recentSpans()).toEqual([]);
  });
});
