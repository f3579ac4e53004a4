import { describe, expect, it } from '@jest/globals';
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
  it('nests spans across awaits and keeps them in memory without a collector', async () => {
    const t = tracing();
    const traceId = await t.inSpan({ name: 'outer' }, async (outer) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      await t.inChildSpan({ name: 'inner' }, () => Promise.resolve());
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
    const failing = t.inSpan({ name: 'fails' }, () =>
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
      await t.inSpan({ name: 'root' }, () => t.inSpan({ name: 'child' }, () => Promise.resolve()));
      expect({ env, spans: t.recentSpans().length }).toEqual({ env, spans: 0 });
      await t.onApplicationShutdown();
    }
    const all = tracing({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' });
    await all.inSpan({ name: 'root' }, () => Promise.resolve());
    expect(all.recentSpans().map((span) => span.name)).toEqual(['root']);
    await all.onApplicationShutdown();
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
