import { describe, expect, it } from '@jest/globals';
import { ConfigError } from './config-error.js';
import { loadConfig } from './load-config.js';

const telemetry = (env: Record<string, string>) => loadConfig(env).telemetry;

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('telemetry configuration (standard OTEL_* variables)', () => {
  it('keeps spans in memory and serves /metrics when nothing is configured', () => {
    expect(telemetry({})).toEqual({
      tracing: true,
      resource: { 'service.name': 'svc-gateway' },
      traces: {
        otlp: undefined,
        sampler: { name: 'parentbased_always_on', ratio: 1 },
        batch: {
          scheduledDelayMs: 5000,
          exportTimeoutMs: 30_000,
          maxQueueSize: 2048,
          maxExportBatchSize: 512,
        },
      },
      metrics: { prometheus: true, otlp: undefined, intervalMs: 60_000, timeoutMs: 30_000 },
      metricsPublic: false,
    });
  });

  it('exports spans once an endpoint is set, with the SDK defaults (http/protobuf)', () => {
    expect(telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).traces.otlp).toEqual(
      {
        url: 'http://collector:4318/v1/traces',
        protocol: 'http/protobuf',
        headers: {},
        timeoutMs: 10_000,
        compression: 'none',
      },
    );
    // A base URL with a path keeps it; a trailing slash is not doubled.
    expect(
      telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/otlp/' }).traces.otlp?.url,
    ).toBe('https://otel.example.com/otlp/v1/traces');
    // Asked for without an endpoint: the SDK's default collector address.
    expect(telemetry({ OTEL_TRACES_EXPORTER: 'otlp' }).traces.otlp?.url).toBe(
      'http://localhost:4318/v1/traces',
    );
    // none: no collector, spans stay in memory.
    expect(
      telemetry({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })
        .traces.otlp,
    ).toBeUndefined();
  });

  it('lets each signal’s own variables win over the general ones', () => {
    const config = telemetry({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://general:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom/path',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20general,x-tenant=acme',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=Bearer%20traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '3000',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_EXPORTER_OTLP_METRICS_COMPRESSION: 'none',
      OTEL_METRICS_EXPORTER: 'prometheus, otlp',
    });
    expect(config.traces.otlp).toEqual({
      url: 'http://traces:9999/custom/path',
      protocol: 'http/json',
      headers: { authorization: 'Bearer traces', 'x-tenant': 'acme' },
      timeoutMs: 3000,
      compression: 'gzip',
    });
    expect(config.metrics).toMatchObject({
      prometheus: true,
      otlp: {
        url: 'http://general:4318/v1/metrics',
        protocol: 'http/protobuf',
        headers: { authorization: 'Bearer general', 'x-tenant': 'acme' },
        timeoutMs: 2000,
        compression: 'none',
      },
    });
    // The signal-specific endpoint is used as it is: nothing appended.
    expect(
      telemetry({
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://m:4318',
      }).metrics,
    ).toMatchObject({ prometheus: false, otlp: { url: 'http://m:4318/' } });
  });

  it('reads the sampler, the batch processor and the metric reader settings', () => {
    const config = telemetry({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_BSP_EXPORT_TIMEOUT: '1000',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10',
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
    });
    expect(config.traces.sampler).toEqual({ name: 'parentbased_traceidratio', ratio: 0.25 });
    expect(config.traces.batch).toEqual({
      scheduledDelayMs: 100,
      exportTimeoutMs: 1000,
      maxQueueSize: 100,
      maxExportBatchSize: 10,
    });
    // The default export timeout shrinks to a short interval, as the SDK requires.
    expect(config.metrics).toMatchObject({ intervalMs: 5000, timeoutMs: 5000 });
    // A small queue takes the default batch size down with it.
    expect(telemetry({ OTEL_BSP_MAX_QUEUE_SIZE: '64' }).traces.batch.maxExportBatchSize).toBe(64);
    // The argument means nothing to the other samplers (the SDK ignores it too).
    expect(
      telemetry({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: 'x' }).traces.sampler,
    ).toEqual({ name: 'always_on', ratio: 1 });
  });

  it('builds the resource from OTEL_RESOURCE_ATTRIBUTES; OTEL_SERVICE_NAME wins', () => {
    const attributes = 'deployment.environment.name=prod,service.name=from-attrs,team=a%2Cb%3Dc';
    expect(telemetry({ OTEL_RESOURCE_ATTRIBUTES: attributes }).resource).toEqual({
      'deployment.environment.name': 'prod',
      'service.name': 'from-attrs',
      team: 'a,b=c',
    });
    expect(
      telemetry({ OTEL_RESOURCE_ATTRIBUTES: attributes, OTEL_SERVICE_NAME: 'gw' }).resource[
        'service.name'
      ],
    ).toBe('gw');
  });

  it('stops the start on a value the SDK would quietly ignore, naming the variable', () => {
    expect(errorOf({ OTEL_TRACES_SAMPLER: 'sometimes' })).toBe(
      'OTEL_TRACES_SAMPLER must be one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio (got "sometimes")',
    );
    expect(errorOf({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toBe(
      'OTEL_TRACES_SAMPLER_ARG must be a number between 0 and 1 for traceidratio (got "1.5")',
    );
    expect(
      errorOf({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: 'half' }),
    ).toContain('OTEL_TRACES_SAMPLER_ARG must be a number between 0 and 1');
    expect(errorOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBe(
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (gRPC export is not built in: point it at the collector’s OTLP/HTTP port, 4318) (got "grpc")',
    );
    expect(errorOf({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/xml' })).toMatch(
      /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http\/protobuf or http\/json/,
    );
    expect(errorOf({ OTEL_BSP_SCHEDULE_DELAY: 'soon' })).toBe(
      'OTEL_BSP_SCHEDULE_DELAY must be an integer between 0 and 3600000 (got "soon")',
    );
    expect(errorOf({ OTEL_EXPORTER_OTLP_TIMEOUT: '0' })).toMatch(
      /^OTEL_EXPORTER_OTLP_TIMEOUT must be an integer between 1 and/,
    );
    expect(errorOf({ OTEL_EXPORTER_OTLP_COMPRESSION: 'brotli' })).toBe(
      'OTEL_EXPORTER_OTLP_COMPRESSION must be one of gzip, none (got "brotli")',
    );
    expect(errorOf({ OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '200' })).toBe(
      'OTEL_BSP_MAX_EXPORT_BATCH_SIZE must be at most OTEL_BSP_MAX_QUEUE_SIZE (100) (got 200)',
    );
    expect(
      errorOf({ OTEL_METRIC_EXPORT_INTERVAL: '1000', OTEL_METRIC_EXPORT_TIMEOUT: '5000' }),
    ).toBe(
      'OTEL_METRIC_EXPORT_TIMEOUT must be at most OTEL_METRIC_EXPORT_INTERVAL (1000) (got 5000)',
    );
    expect(errorOf({ OTEL_TRACES_EXPORTER: 'zipkin' })).toBe(
      'OTEL_TRACES_EXPORTER must be a comma-separated list of otlp, none (got "zipkin")',
    );
    expect(errorOf({ OTEL_METRICS_EXPORTER: 'otlp,none' })).toBe(
      'OTEL_METRICS_EXPORTER cannot combine none with other exporters (got "otlp,none")',
    );
    expect(errorOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' })).toContain(
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an absolute http:// or https:// URL',
    );
    expect(errorOf({ OTEL_LOG_LEVEL: 'chatty' })).toBe(
      'OTEL_LOG_LEVEL must be one of none, error, warn, info, debug, verbose, all (got "chatty")',
    );
    expect(telemetry({ OTEL_LOG_LEVEL: 'DEBUG' }).tracing).toBe(true);
  });

  it('refuses a malformed header list without showing any of it', () => {
    const secret = 'Bearer%20s3cr3t-t0ken';
    const cases: Array<[string, string]> = [
      [`authorization ${secret}`, 'entry 1 is not name=value'],
      [`x-tenant=acme,${secret}`, 'entry 2 is not name=value'],
      [`authorization=${secret};q`, 'entry 1 has an unencoded ; (write %3B)'],
      [`authorization=${secret}%`, 'entry 1 has a malformed %-escape'],
      [`bad name=${secret}`, 'entry 1 has a name that is not a valid HTTP header name'],
      [`authorization=${secret}%0D%0Ax-evil=1`, 'entry 1 has a control character in its value'],
      ['authorization=', 'entry 1 has an empty name or value'],
    ];
    for (const [value, problem] of cases) {
      for (const variable of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_METRICS_HEADERS']) {
        const message = errorOf({ [variable]: value });
        expect(message).toBe(
          `${variable} must be a comma-separated list of header=value pairs (values percent-encoded): ${problem}`,
        );
        expect(message).not.toMatch(/s3cr3t|acme/);
      }
    }
    // Empty entries are skipped (a trailing comma), as the SDK does; base64 padding is a value.
    expect(
      telemetry({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Basic dXNlcjpwdw==, ,',
      }).traces.otlp?.headers,
    ).toEqual({ authorization: 'Basic dXNlcjpwdw==' });
  });

  it('refuses malformed resource attributes, as the SDK’s detector would discard them', () => {
    expect(errorOf({ OTEL_RESOURCE_ATTRIBUTES: 'team=a=b' })).toBe(
      'OTEL_RESOURCE_ATTRIBUTES must be a comma-separated list of key=value pairs (percent-encoded): entry 1 has an unencoded = (write %3D) (got "team=a=b")',
    );
    expect(errorOf({ OTEL_RESOURCE_ATTRIBUTES: `team=${'x'.repeat(256)}` })).toContain(
      'entry 1 is longer than 255 characters',
    );
    expect(errorOf({ OTEL_RESOURCE_ATTRIBUTES: 'a=1,=2' })).toContain('entry 2 is not name=value');
  });
});
