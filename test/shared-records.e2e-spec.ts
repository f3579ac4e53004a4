import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RecordedAuditEvent } from '../src/platform/audit/audit-event.js';
import { AuditSink } from '../src/platform/audit/audit-sink.js';
import type { RunRecord } from '../src/runs/record/run-record.js';
import type { StudioLoop, StudioSnapshot } from '../src/studio/studio-records.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { refundGraph } from './support/graphs.js';

const ROOT = 'shared-records-root-key';
const as = { Authorization: `Bearer ${ROOT}` };

const studio = async (gateway: RunningGateway, tenant: string): Promise<StudioSnapshot> =>
  (await request(gateway.url).get(`/v1/studio?tenant_id=${tenant}`).set(as).expect(200))
    .body as StudioSnapshot;
const audit = async (gateway: RunningGateway, query: string): Promise<RecordedAuditEvent[]> =>
  (await request(gateway.url).get(`/v1/audit${query}`).set(as).expect(200)).body
    .events as RecordedAuditEvent[];
const loopOf = (snapshot: StudioSnapshot, runId: string): StudioLoop | undefined =>
  snapshot.loops.find((loop) => loop.run_id === runId);

describe.each(BACKENDS)(
  'audit and studio in the state backend across a restart (%s)',
  (backend) => {
    let fixture: BackendFixture;
    let gateway: RunningGateway | undefined;
    const env = () => ({
      ...fixture.env,
      SVC_API_KEY: ROOT,
      SVC_AUDIT_STORE: 'state',
      SVC_STUDIO_STORE: 'state',
    });
    beforeAll(async () => {
      fixture = await createBackend(backend);
    });
    afterAll(async () => {
      await gateway?.close();
      await fixture.cleanup();
    });

    it('shows the same audit events, loops and sessions after the gateway restarts', async () => {
      gateway = await startGateway(env());
      const ran = (
        await request(gateway.url)
          .post('/v1/agent/run')
          .set(as)
          .send({ tenant_id: 'acme', prompt: '/tool calculator {"expression":"2*3"}' })
          .expect(200)
      ).body as RunRecord;
      await request(gateway.url)
        .post('/v1/tools/default/echo')
        .set(as)
        .send({ tenant_id: 'acme', arguments: { text: 'kept' } })
        .expect(200);
      const eventsBefore = await audit(gateway, '?tenant_id=acme');
      const studioBefore = await studio(gateway, 'acme');
      expect(eventsBefore.map((e) => e.kind)).toEqual([
        'tool.invoked',
        'run.completed',
        'tool.invoked',
        'run.started',
      ]);
      expect(studioBefore.loops).toMatchObject([{ run_id: ran.run_id, status: 'completed' }]);
      expect(studioBefore.sessions).toMatchObject([{ id: ran.session_id, tool_calls: 1, runs: 1 }]);
      // An event recorded just before the gateway closes is written before its pool closes.
      gateway.app.get(AuditSink).record({ kind: 'tool.deleted', tenantId: 'acme', details: {} });
      await gateway.close();
      gateway = await startGateway(env());
      const eventsAfter = await audit(gateway, '?tenant_id=acme');
      expect(eventsAfter.slice(1)).toEqual(eventsBefore);
      expect(eventsAfter[0]).toMatchObject({ kind: 'tool.deleted', tenantId: 'acme' });
      expect(await studio(gateway, 'acme')).toEqual(studioBefore);
    });
  },
);

describe('two replicas on one PostgreSQL database (the default state stores)', () => {
  let fixture: BackendFixture;
  let a: RunningGateway;
  let b: RunningGateway;
  beforeAll(async () => {
    fixture = await createBackend('postgres');
    const env = { ...fixture.env, SVC_API_KEY: ROOT };
    [a, b] = [await startGateway(env), await startGateway(env)];
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await fixture?.cleanup();
  });

  it('a graph run paused on A and approved on B is completed in both studios, with one audit trail', async () => {
    await request(a.url).put('/v1/agents/refund').set(as).send(refundGraph('acme')).expect(200);
    const runId = 'two-replicas';
    const paused = (
      await request(a.url)
        .post('/v1/agent/run')
        .set(as)
        .send({ tenant_id: 'acme', agent: 'refund', prompt: 'order 5', run_id: runId })
        .expect(202)
    ).body as RunRecord;
    // B sees the run A paused, at once.
    const waitingOnB = loopOf(await studio(b, 'acme'), runId);
    expect(waitingOnB).toMatchObject({ status: 'paused', pending_node: 'pay', agent: 'refund' });
    expect((await studio(a, 'acme')).counts.paused_loops).toBe(1);

    const approved = (
      await request(b.url)
        .post(`/v1/runs/${runId}/approve`)
        .set(as)
        .send({ tenant_id: 'acme', node_id: 'pay', comment: 'fine' })
        .expect(200)
    ).body as RunRecord;
    expect(approved.status).toBe('completed');

    // A never executed the rest of the run, yet shows it completed: one loop, the same id.
    const onA = await studio(a, 'acme');
    const onB = await studio(b, 'acme');
    expect(onA).toEqual(onB);
    expect(onA.loops).toEqual([
      expect.objectContaining({
        id: waitingOnB?.id,
        run_id: runId,
        status: 'completed',
        pending_node: null,
        tool_calls: approved.tool_calls,
        ended_at: approved.ended_at,
      }),
    ]);
    expect(onA.sessions).toEqual([
      expect.objectContaining({ id: paused.session_id, text: approved.text, runs: 1 }),
    ]);
    expect(onA.counts).toMatchObject({ loops: 1, paused_loops: 0, completed_loops: 1 });

    // One audit trail for the run, whichever replica recorded each event.
    const trailA = await audit(a, `?tenant_id=acme&run_id=${runId}`);
    const trailB = await audit(b, `?tenant_id=acme&run_id=${runId}`);
    expect(trailA).toEqual(trailB);
    expect(trailA.map((e) => e.kind).reverse()).toEqual([
      'run.started',
      'step.completed',
      'run.paused',
      'approval.decided',
      'step.completed',
      'run.completed',
    ]);
    expect(await audit(a, '?limit=1000')).toEqual(await audit(b, '?limit=1000'));
  });

  it('a run on either replica is in both studios as soon as it answers', async () => {
    const runs = await Promise.all(
      [a, b, a, b].map(
        async (replica, i) =>
          (
            await request(replica.url)
              .post('/v1/agent/run')
              .set(as)
              .send({ tenant_id: 'beta', prompt: `hello ${i}` })
              .expect(200)
          ).body as RunRecord,
      ),
    );
    const [onA, onB] = [await studio(a, 'beta'), await studio(b, 'beta')];
    expect(onA).toEqual(onB);
    expect(new Set(onA.loops.map((loop) => loop.run_id))).toEqual(
      new Set(runs.map((run) => run.run_id)),
    );
    expect(onA.counts).toMatchObject({ loops: 4, sessions: 4, completed_loops: 4 });
  });
});
