import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { refundGraph } from './support/graphs.js';
import { type ReceivedEvent, readEvents } from './support/sse-client.js';
import {
  type ToolEndpoint,
  registerRouteTool,
  startToolEndpoint,
} from './support/tool-endpoint.js';

const KEY = 'run-stream-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';

interface EventBody {
  id: number;
  type: string;
  data: Record<string, unknown>;
}

const body = (event: ReceivedEvent) => event.json as EventBody;
const types = (events: ReceivedEvent[]) => events.map((event) => event.event);

describe.each(BACKENDS)('streamed runs and run events (%s)', (backend) => {
  let fixture: BackendFixture;
  let endpoint: ToolEndpoint;
  let one: RunningGateway;
  let two: RunningGateway;

  beforeAll(async () => {
    endpoint = await startToolEndpoint();
    fixture = await createBackend(backend);
    const env = { ...fixture.env, SVC_API_KEY: KEY, SVC_STREAM_HEARTBEAT_MS: '1000' };
    one = await startGateway(env);
    two = await startGateway(env);
    await registerRouteTool(endpoint, one.url, auth, {
      tenant: TENANT,
      name: 'slow',
      route: '/sleep/1200',
    });
    await request(one.url).put('/v1/agents/refund').set(auth).send(refundGraph(TENANT)).expect(200);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await fixture?.cleanup();
    await endpoint?.close();
  });

  const events = (url: string, runId: string, headers: Record<string, string> = {}) =>
    readEvents(`${url}/v1/runs/${runId}/events?tenant_id=${TENANT}`, {
      headers: { ...auth, ...headers },
    });

  it('POST stream:true answers text/event-stream: started, tool, deltas, settled, in order', async () => {
    const runId = `${backend}-stream-basic`;
    const result = await readEvents(`${one.url}/v1/agent/run`, {
      method: 'POST',
      headers: auth,
      body: {
        tenant_id: TENANT,
        toolset: 'ops',
        prompt: '/tool slow {}',
        run_id: runId,
        stream: true,
      },
    });
    expect(result.status).toBe(200);
    expect(result.headers.get('location')).toBe(`/v1/runs/${runId}?tenant_id=${TENANT}`);
    const seen = types(result.events);
    expect(seen[0]).toBe('run.started');
    expect(seen.at(-1)).toBe('run.settled');
    expect(seen).toEqual(
      expect.arrayContaining(['tool.started', 'tool.finished', 'model.delta', 'run.progressed']),
    );
    const ids = result.events.map((event) => Number(event.id));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    const finished = result.events.find((event) => event.event === 'tool.finished')!;
    expect(body(finished).data).toMatchObject({ name: 'slow', is_error: false, turn: 1 });
    expect(Number(body(finished).data.duration_ms)).toBeGreaterThanOrEqual(1000);
    const settled = body(result.events.at(-1)!).data.run as Record<string, unknown>;
    expect(settled).toMatchObject({ run_id: runId, status: 'completed', tool_calls: 1 });
    // The deltas of the last turn spell its answer.
    const text = result.events
      .filter((event) => event.event === 'model.delta' && body(event).data.turn === 2)
      .map((event) => body(event).data.text)
      .join('');
    expect(text).toBe(settled.text);
  });

  it('resumes on another replica after Last-Event-ID: every later event once, none missing', async () => {
    const runId = `${backend}-stream-resume`;
    const first = await readEvents(`${one.url}/v1/agent/run`, {
      method: 'POST',
      headers: auth,
      body: {
        tenant_id: TENANT,
        toolset: 'ops',
        prompt: '/tool slow {}',
        run_id: runId,
        stream: true,
      },
      until: (event) => event.event === 'tool.started',
    });
    expect(first.lastEventId).toBeDefined();
    const rest = await events(two.url, runId, { 'Last-Event-ID': first.lastEventId! });
    expect(rest.status).toBe(200);
    const all = [...first.events, ...rest.events];
    const ids = all.map((event) => Number(event.id));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(types(rest.events)).toContain('tool.finished');
    expect(types(rest.events).at(-1)).toBe('run.settled');
    // A whole read of the log, paged as JSON, is the same sequence.
    const page = await request(two.url)
      .get(`/v1/runs/${runId}/events?tenant_id=${TENANT}`)
      .set(auth)
      .expect(200);
    expect(page.body.done).toBe(true);
    expect((page.body as { events: EventBody[] }).events.map((event) => event.id)).toEqual(ids);
  });

  it('background: 202 with Location at once; the run goes on and its events can be followed', async () => {
    const runId = `${backend}-background`;
    const res = await request(one.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({
        tenant_id: TENANT,
        toolset: 'ops',
        prompt: '/tool slow {}',
        run_id: runId,
        background: true,
      })
      .expect(202);
    expect(res.headers.location).toBe(`/v1/runs/${runId}?tenant_id=${TENANT}`);
    expect(res.body).toMatchObject({ run_id: runId, status: 'running' });
    const followed = await events(two.url, runId);
    expect(types(followed.events).at(-1)).toBe('run.settled');
    const waited = await request(two.url)
      .get(`${res.headers.location}&wait=10`)
      .set(auth)
      .expect(200);
    expect(waited.body.status).toBe('completed');
  });

  it('a paused run keeps its stream open with heartbeats; a decision elsewhere carries it to the end', async () => {
    const runId = `${backend}-stream-paused`;
    let decided: Promise<unknown> | undefined;
    const result = await readEvents(`${one.url}/v1/agent/run`, {
      method: 'POST',
      headers: auth,
      body: { tenant_id: TENANT, agent: 'refund', prompt: 'order 5', run_id: runId, stream: true },
      // Two heartbeats while paused, then a decision on the other replica.
      onComment: (count) => {
        if (count >= 2 && !decided) {
          decided = request(two.url)
            .post(`/v1/runs/${runId}/approve`)
            .set(auth)
            .send({ tenant_id: TENANT, node_id: 'pay' })
            .then((res) => res.status);
        }
      },
    });
    expect(await decided).toBe(200);
    const seen = types(result.events);
    expect(seen).toEqual([
      'run.started',
      'step.started',
      'step.finished',
      'run.progressed',
      'approval.requested',
      'run.paused',
      'approval.decided',
      'run.resumed',
      'step.started',
      'step.finished',
      'run.progressed',
      'run.settled',
    ]);
    expect(result.comments).toBeGreaterThanOrEqual(2);
    const decision = body(result.events[6]).data;
    expect(decision).toMatchObject({ node: 'pay', decision: 'approved' });
    expect((body(result.events.at(-1)!).data.run as { status: string }).status).toBe('completed');
  });

  it('a replica shutting down ends its open streams, which resume on another', async () => {
    const env = { ...fixture.env, SVC_API_KEY: KEY, SVC_STREAM_HEARTBEAT_MS: '1000' };
    const leaving = await startGateway(env);
    const runId = `${backend}-stream-shutdown`;
    await request(leaving.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, agent: 'refund', prompt: 'order 6', run_id: runId })
      .expect(202);
    let closing: Promise<void> | undefined;
    const cut = await readEvents(`${leaving.url}/v1/runs/${runId}/events?tenant_id=${TENANT}`, {
      headers: auth,
      onEvent: (event) => {
        if (event.event === 'run.paused') closing ??= leaving.close();
      },
    });
    await closing;
    expect(types(cut.events).at(-1)).toBe('run.paused');
    const resumed = await request(one.url)
      .get(`/v1/runs/${runId}/events?tenant_id=${TENANT}&after=${cut.lastEventId}`)
      .set(auth)
      .expect(200);
    expect(resumed.body.events).toEqual([]);
  });

  it('refuses what it cannot stream with a problem, not a stream', async () => {
    const unknown = await events(one.url, `${backend}-no-such-run`);
    expect(unknown.status).toBe(404);
    const bad = await events(one.url, `${backend}-stream-basic`, { 'Last-Event-ID': 'abc' });
    expect(bad.status).toBe(400);
    const noPrompt = await readEvents(`${one.url}/v1/agent/run`, {
      method: 'POST',
      headers: auth,
      body: { tenant_id: TENANT, stream: true },
    });
    expect(noPrompt.status).toBe(400);
    const otherTenant = await request(one.url)
      .get(`/v1/runs/${backend}-stream-basic/events?tenant_id=beta`)
      .set(auth)
      .expect(404);
    expect(otherTenant.body.status).toBe(404);
  });
});
