import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { type CountingEndpoint, startCountingEndpoint } from './support/counting-endpoint.js';
import { MockModel, type SeenRequest, completion } from './support/mock-model.js';
import { gatewayForSuite } from './support/suite.js';
import { registerRouteTool } from './support/tool-endpoint.js';

const KEY = 'idempotency-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';

const answeredByTool = (req: SeenRequest) =>
  (req.body.messages as Array<{ role: string }> | undefined)?.at(-1)?.role === 'tool';

describe.each(BACKENDS)('Idempotency-Key on outgoing tool calls (%s)', (backend) => {
  const model = new MockModel();
  let endpoint: CountingEndpoint;
  beforeAll(async () => {
    await model.start();
    endpoint = await startCountingEndpoint();
  });
  afterAll(async () => {
    await model.close();
    await endpoint.close();
  });
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: KEY,
    SVC_PROVIDER_URL: `${model.url}/v1`,
  }));
  beforeAll(() =>
    registerRouteTool(endpoint, gateway.url, auth, {
      tenant: TENANT,
      name: 'count',
      route: '/count',
    }),
  );
  /** The Idempotency-Key of every call the endpoint received since the last look. */
  const keysSeen = () => endpoint.received.splice(0).map((call) => call.headers['idempotency-key']);

  it("carries run/turn/call on a plain run's tool calls", async () => {
    model.reset((req) =>
      answeredByTool(req)
        ? { body: completion('done') }
        : {
            body: completion(null, [
              { id: 'call_a', name: 'count', arguments: '{}' },
              { id: 'call_b', name: 'count', arguments: '{}' },
            ]),
          },
    );
    await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, toolset: 'ops', prompt: 'count twice', run_id: 'plain-1' })
      .expect(200);
    expect(keysSeen().sort()).toEqual(['plain-1/1/call_a', 'plain-1/1/call_b']);
  });

  it('carries run/step on a graph tool step, and run/step/turn/call in an agent step', async () => {
    model.reset((req) =>
      answeredByTool(req)
        ? { body: completion('agent done') }
        : { body: completion(null, [{ id: 'call_x', name: 'count', arguments: '{}' }]) },
    );
    await request(gateway.url)
      .put('/v1/agents/keyed')
      .set(auth)
      .send({
        tenant_id: TENANT,
        topology: 'pipeline',
        steps: [
          { id: 'tally', kind: 'tool', tool: 'count', toolset: 'ops' },
          {
            id: 'think',
            kind: 'agent',
            prompt: 'count once',
            toolset: 'ops',
            depends_on: ['tally'],
          },
        ],
      })
      .expect(200);
    const res = await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, agent: 'keyed', prompt: 'go', run_id: 'graph-1' })
      .expect(200);
    expect(res.body.status).toBe('completed');
    expect(keysSeen()).toEqual(['graph-1/tally', 'graph-1/think/1/call_x']);
  });

  it("passes a direct call's own Idempotency-Key on, and sends none without one", async () => {
    const call = () =>
      request(gateway.url)
        .post('/v1/tools/ops/count')
        .set(auth)
        .send({ tenant_id: TENANT, arguments: {} });
    await call().set('Idempotency-Key', 'order-42 attempt').expect(200);
    await call().expect(200);
    expect(keysSeen()).toEqual(['order-42 attempt', undefined]);
  });

  it('refuses an Idempotency-Key that could not be passed on unchanged (400)', async () => {
    const res = await request(gateway.url)
      .post('/v1/tools/ops/count')
      .set(auth)
      .set('Idempotency-Key', 'x'.repeat(256))
      .send({ tenant_id: TENANT, arguments: {} })
      .expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      type: 'urn:svc:problem:validation',
      errors: [
        {
          path: 'Idempotency-Key',
          message: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
        },
      ],
    });
    expect(endpoint.received).toHaveLength(0);
  });
});
