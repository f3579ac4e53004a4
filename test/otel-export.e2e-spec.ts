import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { PACKAGE } from '../src/platform/config/package-info.js';
import { Tracing } from '../src/platform/telemetry/tracing.service.js';
import { BACKENDS } from './support/backends.js';
import { waitUntil } from './support/chat-server.js';
import { LogCapture } from './support/gateway.js';
import { OtlpReceiver } from './support/otlp-receiver.js';
import { gatewayForSuite } from './support/suite.js';

// Issue 17 item 5: the standard OTEL_* variables, as every OpenTelemetry SDK reads them.

const KEY = 'otel-export-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';
const COLLECTOR_TOKEN = 'collector-token-5ecret';

// nestjs-pino keeps one logger per process: every gateway of this file logs here.
const logs = new LogCapture();

describe.each(BACKENDS)('spans and metrics over OTLP/HTTP JSON with headers (%s)', (backend) => {
  // The traces endpoint is set on its own; everything else goes to the general endpoint.
  const traces = new OtlpReceiver();
  const general = new OtlpReceiver();
  beforeAll(() => Promise.all([traces.start(), general.start()]));
  const gateway = gatewayForSuite(
    backend,
    () => ({
      SVC_API_KEY: KEY,
      OTEL_EXPORTER_OTLP_ENDPOINT: general.url,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${traces.url}/custom/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${COLLECTOR_TOKEN},x-tenant=${TENANT}`,
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=e2e,service.name=from-attributes',
      OTEL_SERVICE_NAME: 'gateway-e2e',
      // Delivered within a fraction of a second, without Tracing.forceFlush.
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRICS_EXPORTER: 'prometheus,otlp',
      OTEL_METRIC_EXPORT_INTERVAL: '200',
    }),
    { logs },
  );
  // After the gateway has closed (hooks run in order), so its last export finds the collector.
  afterAll(() => Promise.all([traces.close(), general.close()]));

  it('delivers a run’s spans to the traces endpoint with the configured headers and resource', async () => {
    const res = await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, prompt: '/tool calculator {"expression":"2*3"}' })
      .expect(200);
    const traceId = (res.body as RunRecord).trace_id!;
    // The server span ends after the response, so it may come in a later batch.
    const expected = ['POST /v1/agent/run', 'invoke_agent default', 'execute_tool calculator'];
    await waitUntil(() => {
      const names = traces.trace(traceId).map((span) => span.name);
      return expected.every((name) => names.includes(name));
    }, 'the request’s and the run’s spans reach the collector');

    const exports = traces.traceExports();
    for (const received of exports) {
      expect(received.path).toBe('/custom/traces');
      expect(received.contentType).toMatch(/^application\/json/);
      expect(received.headers).toMatchObject({
        authorization: `Bearer ${COLLECTOR_TOKEN}`,
        'x-tenant': TENANT,
      });
    }
    // The general endpoint got no spans: the traces endpoint wins.
    expect(general.traceExports()).toEqual([]);

    const spans = traces.trace(traceId);
    expect(spans.map((span) => span.name)).toContain('chat default');
    expect(spans[0].resource).toMatchObject({
      'service.name': 'gateway-e2e',
      'service.version': PACKAGE.version,
      'deployment.environment.name': 'e2e',
      'telemetry.sdk.language': 'nodejs',
    });
  });

  it('pushes metrics to <endpoint>/v1/metrics, and /metrics still answers', async () => {
    await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, prompt: 'count me' })
      .expect(200);
    // The run is counted when it settles, its request's duration when the response closes
    // (later, after the run's last statements): an export may fall in between.
    await waitUntil(
      () =>
        ['svc_runs', 'svc_http_request_duration_seconds'].every((name) =>
          general.metrics().some((metric) => metric.name === name),
        ),
      "the run counter and the request's duration reach the collector",
    );
    const exports = general.metricExports();
    expect(exports.every((received) => received.path === '/v1/metrics')).toBe(true);
    expect(exports[0].contentType).toMatch(/^application\/json/);
    expect(exports[0].headers.authorization).toBe(`Bearer ${COLLECTOR_TOKEN}`);
    const names = general.metrics().map((metric) => metric.name);
    expect(names).toEqual(
      expect.arrayContaining(['svc_running_runs', 'svc_http_request_duration_seconds']),
    );
    expect(general.metrics()[0].resource['service.name']).toBe('gateway-e2e');
    // Metrics never go to the traces endpoint.
    expect(traces.metricExports()).toEqual([]);

    const scrape = await request(gateway.url).get('/metrics').set(auth).expect(200);
    expect(scrape.text).toMatch(/^svc_runs_total\{status="completed",agent="default"\} \d+$/m);
  });

  it('never shows the collector headers in logs or /info', async () => {
    const info = await request(gateway.url).get('/info').set(auth).expect(200);
    expect(JSON.stringify(info.body)).not.toContain(COLLECTOR_TOKEN);
    expect(logs.text).not.toContain(COLLECTOR_TOKEN);
  });
});

describe('spans over OTLP/HTTP protobuf, gzip, metrics to OTLP only (sqlite)', () => {
  const collector = new OtlpReceiver();
  beforeAll(() => collector.start());
  const gateway = gatewayForSuite(
    'sqlite',
    () => ({
      SVC_API_KEY: KEY,
      // No protocol set: http/protobuf, OTLP's default.
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-collector-key=traces-key',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_METRIC_EXPORT_INTERVAL: '200',
    }),
    { logs },
  );
  afterAll(() => collector.close());

  it('posts protobuf to /v1/traces and /v1/metrics; /metrics is not served', async () => {
    const res = await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, prompt: 'hello' })
      .expect(200);
    const traceId = (res.body as RunRecord).trace_id!;
    await waitUntil(
      () =>
        collector.trace(traceId).some((span) => span.name === 'invoke_agent default') &&
        collector.metrics().some((metric) => metric.name === 'svc_runs'),
      'the run span and the run counter reach the collector',
    );
    const [spans] = collector.traceExports();
    expect(spans).toMatchObject({
      path: '/v1/traces',
      contentType: 'application/x-protobuf',
      headers: { 'content-encoding': 'gzip', 'x-collector-key': 'traces-key' },
    });
    expect(spans.size).toBeGreaterThan(0);
    expect(collector.trace(traceId)[0].resource['service.name']).toBe('svc-gateway');

    const [metrics] = collector.metricExports();
    expect(metrics).toMatchObject({
      path: '/v1/metrics',
      contentType: 'application/x-protobuf',
      headers: { 'content-encoding': 'gzip' },
    });
    // The traces-only header is not sent with metrics.
    expect(metrics.headers['x-collector-key']).toBeUndefined();

    const scrape = await request(gateway.url).get('/metrics').set(auth).expect(404);
    expect(scrape.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe.each<Record<string, string>>([
  { OTEL_TRACES_SAMPLER: 'always_off' },
  { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
])('a sampler that keeps nothing: %o (sqlite)', (sampler) => {
  const collector = new OtlpReceiver();
  beforeAll(() => collector.start());
  const gateway = gatewayForSuite(
    'sqlite',
    () => ({ SVC_API_KEY: KEY, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, ...sampler }),
    { logs },
  );
  afterAll(() => collector.close());

  it('sends no spans, and the run still answers a trace id', async () => {
    const res = await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, prompt: '/tool calculator {"expression":"1+1"}' })
      .expect(200);
    expect(res.body).toMatchObject({ status: 'completed' });
    expect((res.body as RunRecord).trace_id).toMatch(/^[0-9a-f]{32}$/);
    // Every finished span is exported by the flush; none was recorded.
    await gateway.app.get(Tracing).forceFlush();
    expect(collector.requests).toEqual([]);
  });
});
