import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { StepState } from '../src/runs/graph/graph-run-state.js';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { writeKeysFile } from './support/keys-file.js';
import { MockModel, completion } from './support/mock-model.js';
import {
  type ToolEndpoint,
  registerRouteTool,
  startToolEndpoint,
} from './support/tool-endpoint.js';

const TENANT = 'acme';
const KEYS = {
  root: 'approval-root-key',
  approver: 'approval-ops-key',
  runner: 'approval-run-key',
};
const as = (key: string) => ({ Authorization: `Bearer ${key}` });
/** The risky action's route: nothing may reach it before a decision. */
const CHARGE = '/sleep/1';

let endpoint: ToolEndpoint;
let keysFile: string;
beforeAll(async () => {
  endpoint = await startToolEndpoint();
  keysFile = writeKeysFile({
    keys: [
      { id: 'ops-1', key: KEYS.approver, tenant_id: TENANT, roles: ['operator'] },
      { id: 'run-1', key: KEYS.runner, tenant_id: TENANT, roles: ['runner'] },
    ],
  });
});
afterAll(() => endpoint.close());

const charges = () => endpoint.received.filter((call) => call.path === CHARGE);
const stepsOf = (body: unknown): Record<string, StepState> =>
  Object.fromEntries(((body as RunRecord).graph?.steps ?? []).map((step) => [step.id, step]));

/** Registers the `ops` tools and the graphs every suite below uses. */
async function prepare(url: string): Promise<void> {
  const tool = (name: string, route: string) =>
    registerRouteTool(endpoint, url, as(KEYS.root), { tenant: TENANT, name, route });
  await tool('record', '/echo');
  await tool('charge', CHARGE);
  const step = (id: string, name: string, extra: Record<string, unknown> = {}) => ({
    id,
    kind: 'tool',
    tool: name,
    toolset: 'ops',
    ...extra,
  });
  await request(url)
    .put('/v1/agents/refund')
    .set(as(KEYS.root))
    .send({
      tenant_id: TENANT,
      topology: 'pipeline',
      steps: [
        step('prepare', 'record', { arguments: { order: '{{input}}' } }),
        step('charge', 'charge', {
          depends_on: ['prepare'],
          require_approval: true,
          arguments: { order: '{{steps.prepare.output.received.order}}' },
        }),
        step('notify', 'record', { depends_on: ['charge'], arguments: { done: true } }),
      ],
    })
    .expect(200);
  await request(url)
    .put('/v1/agents/cashier')
    .set(as(KEYS.root))
    .send({
      tenant_id: TENANT,
      topology: 'supervisor',
      budget: 2,
      steps: [step('charge', 'charge', { require_approval: true })],
    })
    .expect(200);
}

const startRun = (url: string, agent: string, runId: string) =>
  request(url)
    .post('/v1/agent/run')
    .set(as(KEYS.root))
    .send({ tenant_id: TENANT, agent, prompt: 'order 7', run_id: runId });

const decide = (
  url: string,
  runId: string,
  verb: 'approve' | 'deny',
  key = KEYS.approver,
  extra: Record<string, unknown> = {},
) =>
  request(url)
    .post(`/v1/runs/${runId}/${verb}`)
    .set(as(key))
    .send({ tenant_id: TENANT, node_id: 'charge', ...extra });

describe.each(BACKENDS)('approval of paused graph nodes (%s)', (backend) => {
  const model = new MockModel();
  let fixture: BackendFixture;
  let gateway: RunningGateway;
  beforeAll(async () => {
    await model.start();
    fixture = await createBackend(backend);
    gateway = await startGateway({
      ...fixture.env,
      SVC_API_KEY: KEYS.root,
      SVC_KEYS_FILE: keysFile,
      SVC_PROVIDER_URL: `${model.url}/v1`,
    });
    await prepare(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await fixture?.cleanup();
    await model.close();
  });

  it('pauses before the node, persists it, and runs nothing until approved', async () => {
    endpoint.received.length = 0;
    const paused = await startRun(gateway.url, 'refund', `${backend}-approve`).expect(202);
    expect(paused.body).toMatchObject({
      status: 'paused',
      paused: true,
      pending_node: 'charge',
      ended_at: null,
    });
    expect(charges()).toHaveLength(0);
    const stored = await request(gateway.url)
      .get(`/v1/runs/${backend}-approve?tenant_id=${TENANT}`)
      .set(as(KEYS.root))
      .expect(200);
    expect(stored.body).toMatchObject({ status: 'paused', paused: true, pending_node: 'charge' });
    const steps = stepsOf(stored.body);
    expect(steps.prepare.status).toBe('completed');
    expect(steps.charge).toMatchObject({
      status: 'awaiting_approval',
      approval: 'pending',
      runs: 0,
    });
    expect(steps.notify.status).toBe('pending');

    // The same run id again answers with the paused run; it does not run anything.
    await startRun(gateway.url, 'refund', `${backend}-approve`).expect(202);

    // A key without approve:* is refused and the run stays paused.
    const refused = await decide(gateway.url, `${backend}-approve`, 'approve', KEYS.runner).expect(
      403,
    );
    expect(refused.body.detail).toContain('approve:*');
    expect(charges()).toHaveLength(0);

    const approved = await decide(gateway.url, `${backend}-approve`, 'approve', KEYS.approver, {
      comment: 'refund ok',
    }).expect(200);
    expect(approved.body).toMatchObject({ status: 'completed', paused: false, pending_node: null });
    expect(charges().map((call) => call.body)).toEqual([{ order: 'order 7' }]);
    expect(stepsOf(approved.body).notify.status).toBe('completed');
    expect((approved.body as RunRecord).graph?.decisions).toEqual([
      expect.objectContaining({
        node_id: 'charge',
        decision: 'approved',
        by: 'ops-1',
        comment: 'refund ok',
      }),
    ]);

    // A second decision on the same node is a conflict, whatever it is.
    const twice = await decide(gateway.url, `${backend}-approve`, 'approve').expect(409);
    expect(twice.body.type).toBe('urn:svc:problem:already-decided');
    await decide(gateway.url, `${backend}-approve`, 'deny').expect(409);
    expect(charges()).toHaveLength(1);

    const audit = await request(gateway.url)
      .get(`/v1/audit?tenant_id=${TENANT}&kind=approval.decided`)
      .set(as(KEYS.root))
      .expect(200);
    expect(JSON.stringify(audit.body)).toContain('refund ok');
  });

  it('ends the run as denied on deny: the node and its dependants never run', async () => {
    endpoint.received.length = 0;
    await startRun(gateway.url, 'refund', `${backend}-deny`).expect(202);
    const denied = await decide(gateway.url, `${backend}-deny`, 'deny', KEYS.approver, {
      comment: 'not this one',
    }).expect(200);
    expect(denied.body).toMatchObject({ status: 'denied', paused: false });
    const steps = stepsOf(denied.body);
    expect(steps.charge).toMatchObject({ status: 'denied', approval: 'denied', runs: 0 });
    expect(steps.notify.status).toBe('skipped');
    expect(charges()).toHaveLength(0);
    expect(endpoint.received.map((call) => call.path)).toEqual(['/echo']);
    await decide(gateway.url, `${backend}-deny`, 'approve').expect(409);
    await request(gateway.url)
      .post(`/v1/runs/${backend}-deny/approve`)
      .set(as(KEYS.approver))
      .send({ tenant_id: TENANT, node_id: 'ghost' })
      .expect(404);
  });

  it("pauses a supervisor's call to a worker that needs approval, then makes that very call", async () => {
    endpoint.received.length = 0;
    model.reset((_req, n) => ({
      body:
        n === 0
          ? completion(null, [{ id: 'pay1', name: 'charge', arguments: '{"amount":5}' }])
          : completion('charged 5'),
    }));
    const paused = await startRun(gateway.url, 'cashier', `${backend}-sup`).expect(202);
    expect(paused.body.pending_node).toBe('charge');
    expect((paused.body as RunRecord).graph?.supervisor?.used).toBe(0);
    expect(charges()).toHaveLength(0);
    const done = await decide(gateway.url, `${backend}-sup`, 'approve').expect(200);
    expect(done.body).toMatchObject({ status: 'completed', text: 'charged 5' });
    expect(charges().map((call) => call.body)).toEqual([{ amount: 5 }]);
    expect((done.body as RunRecord).graph?.supervisor?.used).toBe(1);
  });
});

describe('approval across two instances sharing PostgreSQL', () => {
  let fixture: BackendFixture;
  let instances: RunningGateway[];
  beforeAll(async () => {
    fixture = await createBackend('postgres');
    const env = { ...fixture.env, SVC_API_KEY: KEYS.root, SVC_KEYS_FILE: keysFile };
    instances = [await startGateway(env), await startGateway(env)];
    await prepare(instances[0].url);
  });
  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.close()));
    await fixture?.cleanup();
  });

  it('pauses on instance A, is approved through instance B, and completes', async () => {
    const [a, b] = instances;
    endpoint.received.length = 0;
    await startRun(a.url, 'refund', 'two-approve').expect(202);
    expect(charges()).toHaveLength(0);
    await decide(b.url, 'two-approve', 'approve', KEYS.runner).expect(403);
    const approved = await decide(b.url, 'two-approve', 'approve').expect(200);
    expect(approved.body.status).toBe('completed');
    expect(charges()).toHaveLength(1);
    const seenByA = await request(a.url)
      .get(`/v1/runs/two-approve?tenant_id=${TENANT}`)
      .set(as(KEYS.root))
      .expect(200);
    expect(seenByA.body).toMatchObject({ status: 'completed', paused: false });
    await decide(a.url, 'two-approve', 'approve').expect(409);
  });

  it('takes exactly one of two simultaneous approvals, on different instances', async () => {
    endpoint.received.length = 0;
    await startRun(instances[0].url, 'refund', 'two-race').expect(202);
    const answers = await Promise.all(
      instances.map((instance) => decide(instance.url, 'two-race', 'approve').then((res) => res)),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
    expect(charges()).toHaveLength(1);
  });

  it('denies through instance B a run paused on instance A', async () => {
    endpoint.received.length = 0;
    await startRun(instances[0].url, 'refund', 'two-deny').expect(202);
    const denied = await decide(instances[1].url, 'two-deny', 'deny').expect(200);
    expect(denied.body.status).toBe('denied');
    expect(charges()).toHaveLength(0);
  });
});
