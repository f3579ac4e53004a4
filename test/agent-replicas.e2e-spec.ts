import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { RunLeases } from '../src/runs/lifecycle/run-lease.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { MockModel, completion } from './support/mock-model.js';

/** A webhook receiver on 127.0.0.1 that takes every delivery (204). */
async function startReceiver(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(BACKENDS)('one run id on two replicas sharing the state backend (%s)', (backend) => {
  const model = new MockModel();
  let fixture: BackendFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let replicas: RunningGateway[];

  beforeAll(async () => {
    await model.start();
    receiver = await startReceiver();
    fixture = await createBackend(backend);
    const env = {
      ...fixture.env,
      SVC_PROVIDER_URL: `${model.url}/v1`,
      SVC_RUN_WEBHOOK_SECRET: 'whsec-replicas-0123456789',
    };
    replicas = [await startGateway(env), await startGateway(env)];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await fixture.cleanup();
    await receiver.close();
    await model.close();
  });

  it('reaches the model once when both replicas get the same run_id at the same moment', async () => {
    for (let round = 0; round < 5; round++) {
      model.reset(() => ({ delayMs: 50, body: completion('done') }));
      const runId = `dup-${round}`;
      const responses = await Promise.all(
        replicas.map((replica) =>
          request(replica.url)
            .post('/v1/agent/run')
            .send({ tenant_id: 'acme', run_id: runId, prompt: 'go' }),
        ),
      );
      expect(model.requests).toHaveLength(1);
      for (const res of responses) {
        if (res.status === 200) expect(res.body).toMatchObject({ run_id: runId, text: 'done' });
        else expect(res.status).toBe(409);
      }
      expect(responses.some((res) => res.status === 200)).toBe(true);
      // Afterwards both replicas answer with the stored run.
      for (const replica of replicas) {
        const again = await request(replica.url)
          .post('/v1/agent/run')
          .send({ tenant_id: 'acme', run_id: runId, prompt: 'go' })
          .expect(200);
        expect(again.body.text).toBe('done');
      }
      expect(model.requests).toHaveLength(1);
    }
    // Each run counted once in the tenant's usage, with its one model call (10 + 5 tokens).
    const usage = await request(replicas[1].url).get('/v1/usage?tenant_id=acme').expect(200);
    expect(usage.body.totals).toEqual({
      prompt_tokens: 50,
      completion_tokens: 25,
      total_tokens: 75,
      calls: 5,
      runs: 5,
    });
  });

  it('refuses a run id another replica has claimed and not yet recorded, and records nothing', async () => {
    model.reset(() => ({ body: completion('done') }));
    // Replica 0 holds the run's lease as a run id given with a webhook (or by an older build) is
    // held between its claim and its first record.
    const lease = await replicas[0].app.get(RunLeases).claim('held', 'claimed-first');
    expect(lease).not.toBeNull();
    const refused = await request(replicas[1].url)
      .post('/v1/agent/run')
      .send({ tenant_id: 'held', run_id: 'claimed-first', prompt: 'go' });
    expect(refused.body).toMatchObject({ status: 409 });
    expect(refused.body.type).toMatch(/run-in-progress$/);
    expect(model.requests).toHaveLength(0);
    await request(replicas[1].url).get('/v1/runs/claimed-first?tenant_id=held').expect(404);
    await lease!.finish();
    // Free again: the run id starts a run.
    const ran = await request(replicas[1].url)
      .post('/v1/agent/run')
      .send({ tenant_id: 'held', run_id: 'claimed-first', prompt: 'go' })
      .expect(200);
    expect(ran.body).toMatchObject({ status: 'completed', text: 'done' });
    expect(model.requests).toHaveLength(1);
  });

  // A run id given with a webhook is claimed before the run is recorded; one without is claimed
  // with the run's first record, which must not land while the other replica holds the claim.
  it('reaches the model once when one replica claims the run id first and the other with its first record', async () => {
    for (let round = 0; round < 6; round++) {
      model.reset(() => ({ delayMs: 50, body: completion('done') }));
      const runId = `mixed-${round}`;
      const hooked = round % 2;
      const responses = await Promise.all(
        replicas.map((replica, i) =>
          request(replica.url)
            .post('/v1/agent/run')
            .send({
              tenant_id: 'mixed',
              run_id: runId,
              prompt: 'go',
              ...(i === hooked ? { webhook: `${receiver.url}/${runId}` } : {}),
            }),
        ),
      );
      expect(model.requests).toHaveLength(1);
      for (const res of responses) {
        if (res.status === 200) expect(res.body).toMatchObject({ run_id: runId, text: 'done' });
        else
          expect(res.body).toMatchObject({
            status: 409,
            type: expect.stringMatching(/run-in-progress$/),
          });
      }
      expect(responses.some((res) => res.status === 200)).toBe(true);
      for (const replica of replicas) {
        const again = await request(replica.url)
          .get(`/v1/runs/${runId}?tenant_id=mixed`)
          .expect(200);
        expect(again.body).toMatchObject({ status: 'completed', text: 'done' });
      }
    }
  });
});
