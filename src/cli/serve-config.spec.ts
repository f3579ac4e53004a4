import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../platform/config/config-error.js';
import { serveConfig } from './serve-config.js';

describe('serveConfig', () => {
  it('lets flags override the environment', () => {
    const config = serveConfig(
      { host: '127.0.0.2', port: '9090', tenant: 'flag-tenant', otelEndpoint: 'http://otel:4318' },
      { SVC_PORT: '7000', SVC_TENANT: 'env-tenant' },
    );
    expect(config.server).toMatchObject({ host: '127.0.0.2', port: 9090 });
    expect(config.tenancy.defaultTenant).toBe('flag-tenant');
    expect(config.telemetry.traces.otlp?.url).toBe('http://otel:4318/v1/traces');
  });

  it('sends every signal to --otel-endpoint, whatever endpoint variables say', () => {
    const config = serveConfig(
      { otelEndpoint: 'http://flag:4318' },
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://env-traces:4318/v1/traces',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://env-metrics:4318/v1/metrics',
        OTEL_METRICS_EXPORTER: 'prometheus,otlp',
      },
    );
    expect(config.telemetry.traces.otlp?.url).toBe('http://flag:4318/v1/traces');
    expect(config.telemetry.metrics.otlp?.url).toBe('http://flag:4318/v1/metrics');
    expect(() => serveConfig({ otelEndpoint: 'collector:4318' }, {})).toThrow(
      '--otel-endpoint must be an absolute http:// or https:// URL (got "collector:4318")',
    );
  });

  it('names the flag when a flag value is bad', () => {
    expect(() => serveConfig({ port: 'abc' }, {})).toThrow(
      '--port must be an integer between 1 and 65535 (got "abc")',
    );
  });

  it('refuses a non-loopback host without any key', () => {
    expect(() => serveConfig({ host: '0.0.0.0' }, {})).toThrow(ConfigError);
    expect(() => serveConfig({ host: '0.0.0.0' }, {})).toThrow(
      /refusing to serve on 0.0.0.0 without SVC_API_KEY/,
    );
    expect(() => serveConfig({}, { SVC_HOST: '10.0.0.5' })).toThrow(/refusing/);
  });

  it('allows a non-loopback host with a key or with --insecure, and loopback always', () => {
    expect(serveConfig({ host: '0.0.0.0' }, { SVC_API_KEY: 'gateway-key-1' }).server.host).toBe(
      '0.0.0.0',
    );
    expect(serveConfig({ host: '0.0.0.0', insecure: true }, {}).server.insecure).toBe(true);
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.1.2.3']) {
      expect(serveConfig({ host }, {}).server.host).toBe(host);
    }
  });
});
