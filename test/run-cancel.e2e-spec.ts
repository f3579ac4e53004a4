import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { waitUntil } from './support/chat-server.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { refundGraph } from './support/graphs.js';
import { readEvents } from './support/sse-client.js';
import {
  type ToolEndpoint,
  registerRouteTool,
  startToolEndpoint,
} from './support/tool-endpoint.js';

const KEY = 'run-cancel-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';

describe.each(BACKENDS)('POST /v1/runs/{id}/cancel (%s)', (backend) => {
  let fixture: BackendFixture;
  let endpoint: ToolEndpoint;
  let one: RunningGateway;
  let two: RunningGateway;

  beforeAll(async () => {
    endpoint = await startToolEndpoint();
    fixture = await createBackend(backend);
    const env = { ...fixture.env, SVC_API_KEY: KEY };
    one = await startGateway(env);
    two = await startGateway(env);
    await registerRouteTool(endpoint, one.url, auth, {
      tenant: TENANT,
      name: 'forever',
      route: '/hold',
    });
    await registerRouteTool(endpoint, one.url, auth, {
      tenant: TENANT,
      name: 'slow',
      route: '/sleep/1500',
    });
    await request(one.url).put('/v1/agents/refund').set(auth).send(refundGraph(TENANT)).expect(200);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await fixture?.cleanup();
    await endpoint?.close();
  });

  const cancel = (url: string, runId: string, tenant = TENANT) =>
    request(url).post(`/v1/runs/${runId}/cancel`).set(auth).send({ tenant_id: tenant });

  async function startHoldingRun(runId: string): Promise<void> {
    await request(one.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({
        tenant_id: TENANT,
        toolset: 'ops',
        prompt: '/tool forever {}',
        run_id: runId,
        background: true,
      })
      .expect(202);
    await waitUntil(
      () =>
        endpoint.received.some((call) =>
          call.headers['idempotency-key']?.toString().startsWith(`${runId}/`),
        ),
      'the tool call is in flight',
    );
  }

  it('from another replica: stops the tool call in flight and settles the run cancelled', async () => {
    const runId = `${backend}-cancel-running`;
    await startHoldingRun(runId);
    const res = await cancel(two.url, runId).expect(200);
    expect(res.body).toMatchObject({ run_id: runId, status: 'cancelled' });
    const call = endpoint.received.find((received) =>
      received.headers['idempotency-key']?.toString().startsWith(`${runId}/`),
    )!;
    await waitUntil(() => call.abandonedAt !== undefined, 'the tool call is aborted');
    const log = await readEvents(`${two.url}/v1/runs/${runId}/events?tenant_id=${TENANT}`, {
      headers: auth,
    });
    const seen = log.events.map((event) => event.event);
    expect(seen).toContain('run.cancel_requested');
    expect(seen.at(-1)).toBe('run.settled');
    const last = log.events.at(-1)!.json as { data: { run: RunRecord } };
    expect(last.data.run.status).toBe('cancelled');
    const read = await request(one.url)
      .get(`/v1/runs/${runId}?tenant_id=${TENANT}`)
      .set(auth)
      .expect(200);
    expect(read.body.status).toBe('cancelled');
    // Idempotent: cancelling it again answers the cancelled run.
    expect((await cancel(one.url, runId).expect(200)).body.status).toBe('cancelled');
  });

  it('a paused graph run is cancelled by whoever gets the request; it never runs its node', async () => {
    const runId = `${backend}-cancel-paused`;
    const started = await request(one.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, agent: 'refund', prompt: 'order 9', run_id: runId })
      .expect(202);
    expect(started.body.status).toBe('paused');
    const res = await cancel(two.url, runId).expect(200);
    expect(res.body).toMatchObject({ status: 'cancelled', paused: false, pending_node: null });
    const pay = (res.body as RunRecord).graph!.steps.find((step) => step.id === 'pay');
    expect(pay?.status).toBe('skipped');
    await request(one.url)
      .post(`/v1/runs/${runId}/approve`)
      .set(auth)
      .send({ tenant_id: TENANT, node_id: 'pay' })
      .expect(409);
  });

  it('a run waiting for its busy session is recorded queued, goes on after it, or is cancelled', async () => {
    const session = `${backend}-busy-session`;
    const run = (runId: string, prompt: string, url = one.url) =>
      request(url).post('/v1/agent/run').set(auth).send({
        tenant_id: TENANT,
        toolset: 'ops',
        prompt,
        session_id: session,
        run_id: runId,
        background: true,
      });
    const first = await run(`${backend}-holder`, '/tool slow {}').expect(202);
    expect(first.body.status).toBe('running');
    const waiting = await run(`${backend}-waiter`, 'after you').expect(202);
    expect(waiting.body.status).toBe('queued');
    const cancelled = await run(`${backend}-dropped`, 'never mind', two.url).expect(202);
    expect(cancelled.body.status).toBe('queued');
    const res = await cancel(one.url, `${backend}-dropped`).expect(200);
    expect(res.body.status).toBe('cancelled');

    const get = (runId: string) =>
      request(two.url).get(`/v1/runs/${runId}?tenant_id=${TENANT}&wait=20`).set(auth).expect(200);
    expect((await get(`${backend}-holder`)).body.status).toBe('completed');
    const after = (await get(`${backend}-waiter`)).body as RunRecord;
    expect(after).toMatchObject({ status: 'completed', text: 'after you' });
    const log = await readEvents(
      `${one.url}/v1/runs/${backend}-waiter/events?tenant_id=${TENANT}`,
      { headers: auth },
    );
    expect(log.events.map((event) => event.event).slice(0, 2)).toEqual([
      'run.queued',
      'run.started',
    ]);
    // The session holds the two runs that ran, not the cancelled one.
    const history = await request(one.url)
      .get(`/v1/sessions/${session}?tenant_id=${TENANT}`)
      .set(auth)
      .expect(200);
    const texts = (history.body.messages as Array<{ content: string }>).map((m) => m.content);
    expect(texts).toContain('after you');
    expect(texts).not.toContain('never mind');
  });

  it('refuses a settled run (409), an unknown one (404), another tenant (404)', async () => {
    const done = await request(one.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, prompt: 'hello', run_id: `${backend}-cancel-done` })
      .expect(200);
    expect(done.body.status).toBe('completed');
    const settled = await cancel(two.url, `${backend}-cancel-done`).expect(409);
    expect(settled.body.type).toBe('urn:svc:problem:run-settled');
    await cancel(one.url, `${backend}-cancel-nothing`).expect(404);
    await cancel(one.url, `${backend}-cancel-done`, 'beta').expect(404);
  });
});
