import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import request from 'supertest';
import type { StepState } from '../src/runs/graph/graph-run-state.js';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { type BackendFixture, createBackend } from './support/backends.js';
import { collect, spawnSvc, waitReady } from './support/cli.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { freePort } from './support/net.js';
import { waitUntil } from './support/chat-server.js';
import { Tracing } from '../src/platform/telemetry/tracing.service.js';
import {
  type ToolEndpoint,
  registerRouteTool,
  startToolEndpoint,
} from './support/tool-endpoint.js';

const KEY = 'takeover-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';
const LEASE_TTL_MS = 1000;

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a graph run whose owner process is killed (PostgreSQL, two instances)', () => {
  let fixture: BackendFixture;
  let endpoint: ToolEndpoint;
  let owner: ChildProcess | undefined;
  let survivor: RunningGateway;

  beforeAll(async () => {
    endpoint = await startToolEndpoint();
    fixture = await createBackend('postgres');
    survivor = await startGateway({
      ...fixture.env,
      SVC_API_KEY: KEY,
      SVC_LEASE_TTL_MS: String(LEASE_TTL_MS),
    });
  });
  afterAll(async () => {
    owner?.kill('SIGKILL');
    await survivor?.close();
    await fixture?.cleanup();
    await endpoint?.close();
  });

  it('is taken over by the other instance after the lease TTL and never re-runs completed steps', async () => {
    const tool = (name: string, route: string) =>
      registerRouteTool(endpoint, survivor.url, auth, { tenant: TENANT, name, route });
    await tool('fetch', '/echo');
    await tool('work', '/hold-first');
    await tool('report', '/sleep/1');
    await request(survivor.url)
      .put('/v1/agents/durable')
      .set(auth)
      .send({
        tenant_id: TENANT,
        topology: 'pipeline',
        steps: [
          {
            id: 'fetch',
            kind: 'tool',
            tool: 'fetch',
            toolset: 'ops',
            arguments: { q: '{{input}}' },
          },
          { id: 'work', kind: 'tool', tool: 'work', toolset: 'ops', depends_on: ['fetch'] },
          {
            id: 'report',
            kind: 'tool',
            tool: 'report',
            toolset: 'ops',
            depends_on: ['work'],
            arguments: { fetched: '{{steps.fetch.output}}', worked: '{{steps.work.output}}' },
          },
        ],
      })
      .expect(200);

    // Instance A is a real `svc serve` process, so that it can die by SIGKILL.
    const port = await freePort();
    owner = spawnSvc(['serve', '--port', String(port)], {
      ...fixture.env,
      SVC_API_KEY: KEY,
      SVC_LEASE_TTL_MS: String(LEASE_TTL_MS),
    });
    const exited = collect(owner, 60_000);
    const ownerUrl = `http://127.0.0.1:${port}`;
    await waitReady(ownerUrl);
    const inFlight = fetch(`${ownerUrl}/v1/agent/run`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        tenant_id: TENANT,
        agent: 'durable',
        prompt: 'p1',
        run_id: 'crash-1',
      }),
    }).catch((error: unknown) => error);

    // A has finished `fetch` and is inside `work` when it dies.
    await until(
      () =>
        Promise.resolve(
          endpoint.received.some((call) => call.path === '/hold-first') ? true : undefined,
        ),
      15_000,
    );
    owner.kill('SIGKILL');
    expect((await exited).signal).toBe('SIGKILL');
    expect(String(await inFlight)).toMatch(/fetch failed/); // the caller saw A die
    const killedAt = Date.now();

    const finished = await until(async () => {
      const res = await request(survivor.url).get(`/v1/runs/crash-1?tenant_id=${TENANT}`).set(auth);
      const record = res.body as RunRecord;
      return record.status === 'completed' ? record : undefined;
    }, 20_000);
    // Not before the dead owner's lease ran out.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LEASE_TTL_MS / 2);

    const calls = (route: string) => endpoint.received.filter((call) => call.path === route);
    expect(calls('/echo')).toHaveLength(1); // the completed step never ran again
    expect(calls('/hold-first')).toHaveLength(2); // the interrupted step ran again
    expect(calls('/sleep/1').map((call) => call.body)).toEqual([
      { fetched: { received: { q: 'p1' } }, worked: { released: true } },
    ]);
    const runs = Object.fromEntries(
      (finished.graph?.steps ?? []).map((step: StepState) => [step.id, step.runs]),
    );
    expect(runs).toEqual({ fetch: 1, work: 2, report: 1 });
    expect(finished.graph?.takeovers).toBe(1);

    // The record keeps the trace of the owner's execution; the survivor's span links to it.
    expect(finished.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const resumedSpan = () =>
      survivor.app
        .get(Tracing)
        .recentSpans()
        .find((span) => span.attributes['svc.run.resumed'] === 'takeover');
    // The execution's span ends once its event log is flushed, a moment after the record settles.
    await waitUntil(() => resumedSpan() !== undefined, 'the survivor ends its execution span');
    const resumed = resumedSpan();
    expect(resumed?.name).toBe('invoke_agent durable');
    expect(resumed?.links.map((link) => link.context.traceId)).toEqual([finished.trace_id]);
    const metrics = await request(survivor.url).get('/metrics').set(auth).expect(200);
    expect(metrics.text).toMatch(/^svc_lease_takeovers_total 1$/m);

    // The run is done: asking for it again returns it without running anything.
    const again = await request(survivor.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, agent: 'durable', prompt: 'p1', run_id: 'crash-1' })
      .expect(200);
    expect(again.body.status).toBe('completed');
    expect(calls('/echo')).toHaveLength(1);
  });
});
