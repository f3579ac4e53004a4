import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { MockModel, completion } from './support/mock-model.js';

describe('one run id on two replicas sharing PostgreSQL', () => {
  const model = new MockModel();
  let fixture: BackendFixture;
  let replicas: RunningGateway[];

  beforeAll(async () => {
    await model.start();
    fixture = await createBackend('postgres');
    const env = { ...fixture.env, SVC_PROVIDER_URL: `${model.url}/v1` };
    replicas = [await startGateway(env), await startGateway(env)];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await fixture.cleanup();
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
});
