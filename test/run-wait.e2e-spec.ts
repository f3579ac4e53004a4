import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { waitUntil } from './support/chat-server.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import {
  type ToolEndpoint,
  registerRouteTool,
  startToolEndpoint,
} from './support/tool-endpoint.js';

const KEY = 'run-wait-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';

describe.each(BACKENDS)('GET /v1/runs/{id}?wait= long-polls a run (%s)', (backend) => {
  let fixture: BackendFixture;
  let endpoint: ToolEndpoint;
  let running: RunningGateway;
  let other: RunningGateway;

  beforeAll(async () => {
    endpoint = await startToolEndpoint();
    fixture = await createBackend(backend);
    const env = { ...fixture.env, SVC_API_KEY: KEY };
    running = await startGateway(env);
    other = await startGateway(env);
    await registerRouteTool(endpoint, running.url, auth, {
      tenant: TENANT,
      name: 'slow',
      route: '/sleep/1500',
    });
  });
  afterAll(async () => {
    await running?.close();
    await other?.close();
    await fixture?.cleanup();
    await endpoint?.close();
  });

  const get = (url: string, runId: string, query = '') =>
    request(url).get(`/v1/runs/${runId}?tenant_id=${TENANT}${query}`).set(auth);

  /** Starts a run calling the slow tool (echo provider) and waits until it is recorded running. */
  async function startSlowRun(runId: string): Promise<{ answer: Promise<unknown> }> {
    const answer = request(running.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, toolset: 'ops', prompt: '/tool slow {}', run_id: runId })
      .then((res) => res);
    await waitUntil(
      async () => (await get(running.url, runId)).body.status === 'running',
      'the run is recorded running',
    );
    return { answer }; // (a promise returned bare would be awaited here)
  }

  it('answers when the run settles, on the replica running it and on another', async () => {
    for (const [name, url] of [
      ['here', running.url],
      ['elsewhere', other.url],
    ] as const) {
      const runId = `${backend}-wait-${name}`;
      const { answer } = await startSlowRun(runId);
      expect((await get(url, runId, '&wait=0').expect(200)).body.status).toBe('running');
      const waited = await get(url, runId, '&wait=30').expect(200);
      expect(waited.body).toMatchObject({ run_id: runId, status: 'completed', tool_calls: 1 });
      await answer;
    }
  });

  it('answers at the end of the wait with the run still running', async () => {
    const runId = `${backend}-wait-short`;
    const { answer } = await startSlowRun(runId);
    const waited = await get(other.url, runId, '&wait=1').expect(200);
    expect(waited.body.status).toBe('running');
    await answer;
  });

  it('answers a settled or unknown run at once, and refuses a bad wait', async () => {
    const runId = `${backend}-wait-done`;
    await request(running.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, prompt: 'hello', run_id: runId })
      .expect(200);
    expect((await get(other.url, runId, '&wait=60').expect(200)).body.status).toBe('completed');
    await get(other.url, `${backend}-no-such-run`, '&wait=60').expect(404);
    for (const wait of ['61', 'soon', '-1', '1.5']) {
      const res = await get(other.url, runId, `&wait=${wait}`).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });
});
