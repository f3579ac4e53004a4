import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { Metrics } from '../src/platform/telemetry/metrics.service.js';
import { Tracing } from '../src/platform/telemetry/tracing.service.js';
import { BACKENDS } from './support/backends.js';
import { LogCapture } from './support/gateway.js';
import { writeKeysFile } from './support/keys-file.js';
import { MockModel, completion } from './support/mock-model.js';
import { OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js';
import { gatewayForSuite } from './support/suite.js';

const KEY = 'telemetry-root-key';
const KEYS = {
  runner: 'telemetry-runner-key',
  acmeOps: 'telemetry-acme-ops',
  ops: 'telemetry-ops',
};
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';
const TRACE_ID = /^[0-9a-f]{32}$/;
const TOOL_PROMPT = '/tool calculator {"expression":"1+2"}';

// nestjs-pino keeps one logger per process: every gateway of this file logs here.
const logs = new LogCapture();

const SPAN_KIND = { internal: 1, server: 2, client: 3 };
const STATUS_ERROR = 2;

/** The one span named `name` (fails the test when there are none or several). */
function only(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  expect({ name, count: found.length }).toEqual({ name, count: 1 });
  return found[0];
}

/** Counter or gauge value of one series in Prometheus text, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe.each(BACKENDS)('tracing to an OTLP/HTTP collector, protobuf (%s)', (backend) => {
  const collector = new OtlpReceiver();
  beforeAll(() => collector.start());
  afterAll(() => collector.close());
  const gateway = gatewayForSuite(
    backend,
    () => ({ SVC_API_KEY: KEY, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }),
    { logs },
  );
  const flushed = async (traceId: string): Promise<ReceivedSpan[]> => {
    await gateway.app.get(Tracing).forceFlush();
    return collector.trace(traceId);
  };
  const run = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .set(headers)
      .send({ tenant_id: TENANT, ...body });

  it('receives the spans of a run with a tool call under the trace id the run answers', async () => {
    const res = await run({ prompt: TOOL_PROMPT }).expect(200);
    const record = res.body as RunRecord;
    expect(record).toMatchObject({ status: 'completed', tool_calls: 1 });
    expect(record.trace_id).toMatch(TRACE_ID);
    const spans = await flushed(record.trace_id!);
    expect(collector.requests.every((r) => r.path === '/v1/traces')).toBe(true);
    // OTLP's default encoding, decoded by the stand-in collector (other encodings: otel-export).
    expect(collector.requests[0].contentType).toBe('application/x-protobuf');

    const http = only(spans, 'POST /v1/agent/run');
    expect(http).toMatchObject({
      kind: SPAN_KIND.server,
      parentSpanId: undefined,
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/v1/agent/run',
        'http.response.status_code': 200,
        'url.path': '/v1/agent/run',
        'svc.request.id': res.headers['x-request-id'],
      },
      resource: { 'service.name': 'svc-gateway' },
    });

    const agent = only(spans, 'invoke_agent default');
    expect(agent).toMatchObject({
      parentSpanId: http.spanId,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'default',
        'gen_ai.conversation.id': record.session_id,
        'svc.run.id': record.run_id,
        'svc.tenant.id': TENANT,
        'svc.run.status': 'completed',
        'svc.run.turns': 2,
        'svc.run.tool_calls': 1,
      },
    });

    const chats = spans.filter((span) => span.name === 'chat default');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat).toMatchObject({
        kind: SPAN_KIND.client,
        parentSpanId: agent.spanId,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'echo',
          'gen_ai.request.model': 'default',
          'gen_ai.response.model': 'echo',
        },
      });
    }
    expect(chats.map((chat) => chat.attributes['gen_ai.response.finish_reasons'])).toEqual(
      expect.arrayContaining([['tool_calls'], ['stop']]),
    );

    const callId = record.messages.find((message) => message.role === 'tool')?.tool_call_id;
    const tool = only(spans, 'execute_tool calculator');
    expect(tool).toMatchObject({
      parentSpanId: agent.spanId,
      statusCode: 0,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'calculator',
        'gen_ai.tool.call.id': callId,
        'gen_ai.tool.type': 'function',
        'svc.toolset': 'default',
        'svc.tool.is_error': false,
      },
    });

    const state = spans.filter((span) => span.attributes['db.system.name'] !== undefined);
    expect(state.length).toBeGreaterThan(0);
    expect(state[0]).toMatchObject({
      kind: SPAN_KIND.client,
      attributes: { 'db.system.name': backend === 'postgres' ? 'postgresql' : 'sqlite' },
    });
    expect(state.map((span) => span.name)).toContain('put state_entries');

    // No prompt, arguments or results in any attribute.
    const everything = JSON.stringify(spans.map((span) => span.attributes));
    expect(everything).not.toContain('1+2');
    expect(everything).not.toContain('expression');
  });

  it('marks a failing tool call as an error span', async () => {
    const res = await run({ prompt: '/tool calculator {"expression":"1/"}' }).expect(200);
    const tool = only(await flushed((res.body as RunRecord).trace_id!), 'execute_tool calculator');
    expect(tool.statusCode).toBe(STATUS_ERROR);
    expect(tool.attributes['svc.tool.is_error']).toBe(true);
    expect(tool.attributes['error.type']).toBeDefined();
  });

  it('continues the trace of an incoming W3C traceparent', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const res = await run({ prompt: 'hi' }, { traceparent: `00-${traceId}-${parent}-01` });
    expect(res.status).toBe(200);
    expect(res.body.trace_id).toBe(traceId);
    const http = only(await flushed(traceId), 'POST /v1/agent/run');
    expect(http.parentSpanId).toBe(parent);
  });

  it('gives every node of a graph run a span below the run span', async () => {
    await request(gateway.url)
      .put('/v1/agents/adder')
      .set(auth)
      .send({
        tenant_id: TENANT,
        topology: 'pipeline',
        steps: [
          { id: 'sum', kind: 'tool', tool: 'calculator', arguments: { expression: '1+2' } },
          {
            id: 'say',
            kind: 'tool',
            tool: 'echo',
            depends_on: ['sum'],
            arguments: { text: 'sum {{steps.sum.output}}' },
          },
        ],
      })
      .expect(200);
    const res = await run({ agent: 'adder', prompt: 'add' }).expect(200);
    expect(res.body).toMatchObject({ status: 'completed', text: 'sum 3' });
    const spans = await flushed((res.body as RunRecord).trace_id!);
    const agent = only(spans, 'invoke_agent adder');
    expect(agent.attributes).toMatchObject({
      'gen_ai.agent.name': 'adder',
      'svc.graph.topology': 'pipeline',
      'svc.run.status': 'completed',
    });
    for (const [id, tool] of [
      ['sum', 'calculator'],
      ['say', 'echo'],
    ]) {
      const step = only(spans, `graph.step ${id}`);
      expect(step).toMatchObject({
        parentSpanId: agent.spanId,
        attributes: {
          'svc.graph.step.id': id,
          'svc.graph.step.kind': 'tool',
          'svc.graph.topology': 'pipeline',
          'svc.graph.step.status': 'completed',
          'svc.graph.step.attempt': 1,
        },
      });
      expect(only(spans, `execute_tool ${tool}`).parentSpanId).toBe(step.spanId);
    }
  });

  it('keeps the trace id of a paused graph run and links its resumption to it', async () => {
    await request(gateway.url)
      .put('/v1/agents/careful')
      .set(auth)
      .send({
        tenant_id: TENANT,
        topology: 'pipeline',
        steps: [
          { id: 'look', kind: 'tool', tool: 'echo', arguments: { text: 'look' } },
          {
            id: 'act',
            kind: 'tool',
            tool: 'echo',
            depends_on: ['look'],
            require_approval: true,
            arguments: { text: 'act' },
          },
        ],
      })
      .expect(200);
    const paused = await run({ agent: 'careful', prompt: 'go', run_id: `careful-${backend}` });
    expect(paused.status).toBe(202);
    const traceId = paused.body.trace_id as string;
    expect(traceId).toMatch(TRACE_ID);
    const first = only(await flushed(traceId), 'invoke_agent careful');

    const approved = await request(gateway.url)
      .post(`/v1/runs/careful-${backend}/approve`)
      .set(auth)
      .send({ tenant_id: TENANT, node_id: 'act' })
      .expect(200);
    expect(approved.body).toMatchObject({ status: 'completed', trace_id: traceId });
    await gateway.app.get(Tracing).forceFlush();
    const resumed = collector
      .spans()
      .filter(
        (span) =>
          span.name === 'invoke_agent careful' && span.attributes['svc.run.resumed'] === 'decision',
      );
    expect(resumed).toHaveLength(1);
    expect(resumed[0].links).toEqual([{ traceId, spanId: first.spanId }]);
    // The resumption belongs to the approving request's trace.
    const approveSpan = collector
      .trace(resumed[0].traceId)
      .find((span) => span.name === 'POST /v1/runs/:run_id/approve');
    expect(approveSpan?.spanId).toBe(resumed[0].parentSpanId);
  });
});

describe('tracing without a collector (sqlite)', () => {
  const model = new MockModel();
  beforeAll(() => model.start());
  afterAll(() => model.close());
  const gateway = gatewayForSuite(
    'sqlite',
    () => ({ SVC_API_KEY: KEY, SVC_PROVIDER_URL: `${model.url}/v1`, SVC_MODEL: 'mock-model' }),
    { logs },
  );

  it('answers a trace id, keeps the spans in memory and logs the request under the same id', async () => {
    model.reset((_request, n) => ({
      body:
        n === 0
          ? completion(null, [
              { id: 'call-1', name: 'calculator', arguments: '{"expression":"1+2"}' },
            ])
          : completion('three'),
    }));
    const res = await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, prompt: 'what is 1+2?' })
      .expect(200);
    const traceId = res.body.trace_id as string;
    expect(traceId).toMatch(TRACE_ID);

    const spans = gateway.app
      .get(Tracing)
      .recentSpans()
      .filter((span) => span.spanContext().traceId === traceId);
    const chats = spans.filter((span) => span.name === 'chat mock-model');
    expect(chats).toHaveLength(2);
    expect(chats[0].attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'mock-model',
      'gen_ai.response.model': 'mock-model',
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
    });
    const tool = spans.find((span) => span.name === 'execute_tool calculator');
    expect(tool?.attributes['gen_ai.tool.call.id']).toBe('call-1');

    const requestId = res.headers['x-request-id'];
    const lines = logs.records().filter((line) => line.trace_id === traceId);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'request completed',
        req: expect.objectContaining({ id: requestId, path: '/v1/agent/run' }),
        span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      }),
    );
  });

  it('counts a run in svc_running_runs while it waits for its model, and not after', async () => {
    model.reset(() => ({ body: completion('slow'), delayMs: 1_000 }));
    const running = async () =>
      sample(
        (await request(gateway.url).get('/metrics').set(auth).expect(200)).text,
        'svc_running_runs',
      );
    const run = request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, prompt: 'take your time' })
      .expect(200);
    const answered = run.then(() => undefined);
    while (model.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await running()).toBe(1);
    await answered;
    expect(await running()).toBe(0);
  });
});

describe('tracing disabled with OTEL_SDK_DISABLED (sqlite)', () => {
  const gateway = gatewayForSuite(
    'sqlite',
    { SVC_API_KEY: KEY, OTEL_SDK_DISABLED: 'true' },
    { logs },
  );

  it('answers trace_id null, records no spans, and still counts the run', async () => {
    const res = await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, prompt: TOOL_PROMPT })
      .expect(200);
    expect(res.body.trace_id).toBeNull();
    expect(gateway.app.get(Tracing).recentSpans()).toEqual([]);
    const text = (await request(gateway.url).get('/metrics').set(auth).expect(200)).text;
    expect(sample(text, 'svc_runs_total{status="completed",agent="default"}')).toBe(1);
    expect(sample(text, 'svc_tool_calls_total{toolset="default",is_error="false"}')).toBe(1);
  });
});

describe('metrics at /metrics (sqlite)', () => {
  const keysFile = writeKeysFile({
    keys: [
      { id: 'run-1', key: KEYS.runner, roles: ['runner'] },
      { id: 'acme-ops', key: KEYS.acmeOps, tenant_id: TENANT, roles: ['operator'] },
      { id: 'ops', key: KEYS.ops, roles: ['operator'] },
    ],
  });
  const gateway = gatewayForSuite(
    'sqlite',
    { SVC_API_KEY: KEY, SVC_KEYS_FILE: keysFile },
    { logs },
  );
  const scrape = async (): Promise<string> => {
    const res = await request(gateway.url).get('/metrics').set(auth).expect(200);
    return res.text;
  };

  it('needs a key with metrics:read that is not bound to a tenant', async () => {
    const res = await request(gateway.url).get('/metrics').expect(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    await request(gateway.url).get('/metrics').set('X-API-Key', KEYS.runner).expect(403);
    await request(gateway.url).get('/metrics').set('X-API-Key', KEYS.acmeOps).expect(403);
    const ok = await request(gateway.url)
      .get('/metrics')
      .set('Authorization', `Bearer ${KEYS.ops}`)
      .expect(200);
    expect(ok.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(ok.text).toContain('# TYPE svc_http_request_duration_seconds histogram');
    expect(ok.text).toMatch(/^svc_running_runs 0$/m);
    expect(ok.text).toMatch(/^svc_lease_takeovers_total 0$/m);
  });

  it('counts runs, tool calls, model calls and requests', async () => {
    const before = await scrape();
    for (const prompt of [TOOL_PROMPT, 'hello']) {
      await request(gateway.url)
        .post('/v1/agent/run')
        .set(auth)
        .send({ tenant_id: TENANT, prompt })
        .expect(200);
    }
    const after = await scrape();
    const grew = (series: string) => sample(after, series) - sample(before, series);
    expect(grew('svc_runs_total{status="completed",agent="default"}')).toBe(2);
    expect(grew('svc_run_duration_seconds_count{status="completed",agent="default"}')).toBe(2);
    expect(grew('svc_tool_calls_total{toolset="default",is_error="false"}')).toBe(1);
    expect(grew('svc_tool_call_duration_seconds_count{toolset="default"}')).toBe(1);
    expect(grew('svc_model_call_duration_seconds_count{provider="echo",outcome="ok"}')).toBe(3);
    expect(
      grew(
        'svc_http_request_duration_seconds_count{method="POST",route="/v1/agent/run",status="200"}',
      ),
    ).toBe(2);
    expect(sample(after, 'svc_running_runs')).toBe(0);
    // Bounded labels only: no run, session or tenant ids.
    expect(after).not.toContain(TENANT);
  });

  it('reports a gauge another module registers (the outbox depth) at every scrape', async () => {
    let depth = 3;
    gateway.app
      .get(Metrics)
      .observeGauge('svc_outbox_depth', 'Messages waiting in the outbox', () => depth);
    expect(await scrape()).toContain('# TYPE svc_outbox_depth gauge');
    expect(sample(await scrape(), 'svc_outbox_depth')).toBe(3);
    depth = 5;
    expect(sample(await scrape(), 'svc_outbox_depth')).toBe(5);
  });
});

describe('public metrics (sqlite)', () => {
  const gateway = gatewayForSuite(
    'sqlite',
    { SVC_API_KEY: KEY, SVC_METRICS_PUBLIC: 'true' },
    { logs },
  );

  it('answers /metrics without a key when SVC_METRICS_PUBLIC is true', async () => {
    const res = await request(gateway.url).get('/metrics').expect(200);
    expect(res.text).toMatch(/^svc_running_runs 0$/m);
    await request(gateway.url).get('/info').expect(401);
  });
});
