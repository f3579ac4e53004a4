import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { KeptSpan } from '../src/platform/telemetry/kept-spans.js';
import type { RunSpans } from '../src/runs/spans/run-spans.js';
import { BACKENDS } from './support/backends.js';
import { waitUntil } from './support/chat-server.js';
import { type GatedEndpoint, startGatedEndpoint } from './support/gated-endpoint.js';
import { refundGraph } from './support/graphs.js';
import { writeKeysFile } from './support/keys-file.js';
import { OtlpReceiver } from './support/otlp-receiver.js';
import { gatewayForSuite } from './support/suite.js';

const ROOT = 'run-spans-root-key';
const KEYS = { acme: 'run-spans-acme-viewer', beta: 'run-spans-beta-viewer' };
const as = (key: string) => ({ Authorization: `Bearer ${key}` });
const CALCULATE = '/tool calculator {"expression":"6*7"}';

const names = (spans: KeptSpan[]) => spans.map((span) => span.name);

describe.each(BACKENDS)("GET /v1/runs/{id}/spans: a run's spans kept in memory (%s)", (backend) => {
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: ROOT,
    SVC_KEYS_FILE: writeKeysFile({
      keys: [
        { id: 'acme-view', key: KEYS.acme, tenant_id: 'acme', roles: ['viewer'] },
        { id: 'beta-view', key: KEYS.beta, tenant_id: 'beta', roles: ['viewer'] },
      ],
    }),
  }));
  const http = () => request(gateway.url);
  const run = (tenant: string, runId: string, extra: Record<string, unknown> = {}) =>
    http()
      .post('/v1/agent/run')
      .set(as(ROOT))
      .send({ tenant_id: tenant, run_id: runId, prompt: CALCULATE, ...extra });
  const spansOf = async (runId: string, tenant = 'acme', key = ROOT): Promise<RunSpans> =>
    (await http().get(`/v1/runs/${runId}/spans?tenant_id=${tenant}`).set(as(key)).expect(200))
      .body as RunSpans;

  let gate: GatedEndpoint;
  beforeAll(async () => {
    gate = await startGatedEndpoint();
    await run('acme', 'spans-tool').expect(200);
    await run('acme', 'spans-other').expect(200);
    // Another tenant's run with the same id.
    await run('beta', 'spans-tool', { prompt: 'hello' }).expect(200);
  });

  it("answers the run's invoke_agent span and everything below it, and nothing else", async () => {
    const answer = await spansOf('spans-tool', 'acme', KEYS.acme);
    expect(answer).toMatchObject({
      run_id: 'spans-tool',
      tenant_id: 'acme',
      kept: true,
      destination: 'memory',
    });
    const [root, ...below] = answer.spans;
    expect(root).toMatchObject({
      name: 'invoke_agent default',
      kind: 'internal',
      trace_id: answer.trace_id,
      status: 'unset',
      attributes: expect.objectContaining({
        'svc.run.id': 'spans-tool',
        'svc.tenant.id': 'acme',
        'svc.run.status': 'completed',
        'svc.run.tool_calls': 1,
      }),
    });
    expect(names(below)).toEqual(
      expect.arrayContaining(['chat default', 'execute_tool calculator']),
    );
    const tool = below.find((span) => span.name === 'execute_tool calculator')!;
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.name': 'calculator' });
    expect(tool.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(tool.ended_at)).toBeGreaterThanOrEqual(Date.parse(tool.started_at));
    // One trace, a tree under the run's span, oldest first; not the request's server span.
    const ids = new Set(answer.spans.map((span) => span.span_id));
    for (const span of below) {
      expect(span.trace_id).toBe(answer.trace_id);
      expect(ids.has(span.parent_span_id!)).toBe(true);
    }
    const starts = answer.spans.map((span) => Date.parse(span.started_at));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(names(answer.spans)).not.toContain('POST /v1/agent/run');
    // Another run's spans stay out.
    const text = JSON.stringify(answer);
    expect(text).not.toContain('spans-other');
  });

  afterAll(() => gate.close());

  it('shows what a run still executing here has finished, before its own span ends', async () => {
    await http()
      .put('/v1/toolsets/ops/tools/wait')
      .set(as(ROOT))
      .send({
        tenant_id: 'acme',
        description: 'waits for the test',
        parameters: { type: 'object', properties: {} },
        endpoint: { url: gate.url },
      })
      .expect(200);
    await run('acme', 'spans-running', {
      toolset: 'ops',
      prompt: '/tool wait {}',
      background: true,
    }).expect(202);
    await gate.arrived();
    const during = await spansOf('spans-running');
    expect(names(during.spans)).toContain('chat default');
    expect(names(during.spans)).not.toContain('invoke_agent default');
    expect(names(during.spans)).not.toContain('execute_tool wait');
    gate.release();
    await http()
      .get('/v1/runs/spans-running?tenant_id=acme&wait=10')
      .set(as(ROOT))
      .expect(200)
      .expect((res) => expect(res.body.status).toBe('completed'));
    // The run's own span ends just after its record says `completed` (it covers the writes
    // that settle the run), so a reader polls for it.
    let after = await spansOf('spans-running');
    await waitUntil(async () => {
      after = await spansOf('spans-running');
      return names(after.spans).includes('invoke_agent default');
    }, 'the run span ends');
    expect(names(after.spans)).toEqual(
      expect.arrayContaining(['invoke_agent default', 'execute_tool wait']),
    );
  });

  it("keeps tenants apart: another tenant's key is refused, and another tenant's run is not found", async () => {
    await http().get('/v1/runs/spans-tool/spans?tenant_id=acme').set(as(KEYS.beta)).expect(403);
    // beta's run of the same id is beta's own: a plain run without tools.
    const beta = await spansOf('spans-tool', 'beta', KEYS.beta);
    expect(beta.tenant_id).toBe('beta');
    expect(names(beta.spans)).not.toContain('execute_tool calculator');
    for (const span of beta.spans) {
      if (span.attributes['svc.tenant.id'] !== undefined) {
        expect(span.attributes['svc.tenant.id']).toBe('beta');
      }
    }
    const missing = await http()
      .get('/v1/runs/spans-other/spans?tenant_id=beta')
      .set(as(KEYS.beta))
      .expect(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    const noTenant = await http().get('/v1/runs/spans-tool/spans').set(as(ROOT)).expect(400);
    expect(noTenant.body.errors[0].path).toBe('tenant_id');
    await http().get('/v1/runs/spans-tool/spans?tenant_id=acme').expect(401);
  });

  it('follows a graph run across its approval: both executions and every step', async () => {
    await http().put('/v1/agents/refund').set(as(ROOT)).send(refundGraph('acme')).expect(200);
    await http()
      .post('/v1/agent/run')
      .set(as(ROOT))
      .send({ tenant_id: 'acme', agent: 'refund', prompt: 'order 7', run_id: 'spans-graph' })
      .expect(202);
    const paused = await spansOf('spans-graph');
    expect(names(paused.spans)).toEqual(
      expect.arrayContaining(['invoke_agent refund', 'graph.step look']),
    );
    expect(names(paused.spans)).not.toContain('graph.step pay');
    await http()
      .post('/v1/runs/spans-graph/approve')
      .set(as(ROOT))
      .send({ tenant_id: 'acme', node_id: 'pay' })
      .expect(200);
    const done = await spansOf('spans-graph');
    const runs = done.spans.filter((span) => span.name === 'invoke_agent refund');
    expect(runs).toHaveLength(2);
    expect(runs[1].attributes).toMatchObject({ 'svc.run.resumed': 'decision' });
    // The continuation is in the trace of the approving request, still the run's.
    expect(runs[1].trace_id).not.toBe(done.trace_id);
    expect(names(done.spans)).toEqual(
      expect.arrayContaining(['graph.step look', 'graph.step pay']),
    );
  });
});

describe('GET /v1/runs/{id}/spans when spans are not kept here (sqlite)', () => {
  const collector = new OtlpReceiver();
  beforeAll(() => collector.start());
  afterAll(() => collector.close());
  const exported = gatewayForSuite('sqlite', () => ({
    SVC_API_KEY: ROOT,
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_BSP_SCHEDULE_DELAY: '50',
  }));
  const off = gatewayForSuite('sqlite', { SVC_API_KEY: ROOT, OTEL_SDK_DISABLED: 'true' });

  it('says the spans went to the collector, with the trace id to look for there', async () => {
    const run = await request(exported.url)
      .post('/v1/agent/run')
      .set(as(ROOT))
      .send({ tenant_id: 'acme', run_id: 'sent-away', prompt: CALCULATE })
      .expect(200);
    const answer = await request(exported.url)
      .get('/v1/runs/sent-away/spans?tenant_id=acme')
      .set(as(ROOT))
      .expect(200);
    expect(answer.body).toEqual({
      run_id: 'sent-away',
      tenant_id: 'acme',
      trace_id: run.body.trace_id,
      kept: false,
      destination: 'collector',
      spans: [],
    });
    expect(run.body.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('says tracing is off', async () => {
    await request(off.url)
      .post('/v1/agent/run')
      .set(as(ROOT))
      .send({ tenant_id: 'acme', run_id: 'untraced', prompt: 'hello' })
      .expect(200);
    const answer = await request(off.url)
      .get('/v1/runs/untraced/spans?tenant_id=acme')
      .set(as(ROOT))
      .expect(200);
    expect(answer.body).toMatchObject({
      kept: false,
      destination: 'off',
      trace_id: null,
      spans: [],
    });
  });
});
