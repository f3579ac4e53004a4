import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { RunWebhookStore } from '../src/runs/webhooks/run-webhook.store.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { waitUntil } from './support/chat-server.js';
import { type RunningGateway, startGateway } from './support/gateway.js';

const KEY = 'run-webhooks-root-key';
const SECRET = 'whsec-test-secret-0123456789';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: { type: string; run: { run_id: string; status: string; text: string } };
}

/** A receiver on 127.0.0.1: `/fail-first/<tag>` answers 500 to its first delivery, else 204. */
async function startReceiver() {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      deliveries.push({
        path,
        headers: req.headers,
        raw,
        body: JSON.parse(raw) as Delivery['body'],
      });
      const first = deliveries.filter((delivery) => delivery.path === path).length === 1;
      res.writeHead(path.startsWith('/fail-first') && first ? 500 : 204);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    deliveries,
    to: (path: string) => deliveries.filter((delivery) => delivery.path === path),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What a receiver does with the Standard Webhooks headers. */
function validSignature(delivery: Delivery): boolean {
  const id = String(delivery.headers['webhook-id']);
  const timestamp = String(delivery.headers['webhook-timestamp']);
  const expected = createHmac('sha256', SECRET)
    .update(`${id}.${timestamp}.${delivery.raw}`)
    .digest('base64');
  return delivery.headers['webhook-signature'] === `v1,${expected}`;
}

describe.each(BACKENDS)('run webhooks (%s)', (backend) => {
  let fixture: BackendFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let one: RunningGateway;
  let two: RunningGateway;

  beforeAll(async () => {
    receiver = await startReceiver();
    fixture = await createBackend(backend);
    const env = {
      ...fixture.env,
      SVC_API_KEY: KEY,
      SVC_RUN_WEBHOOK_SECRET: SECRET,
      SVC_OUTBOX_POLL_MS: '100',
      SVC_OUTBOX_RETRY_BASE_MS: '50',
    };
    one = await startGateway(env);
    two = await startGateway(env);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await fixture?.cleanup();
    await receiver?.close();
  });

  const run = (body: Record<string, unknown>, url = one.url) =>
    request(url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, ...body });

  it('a background run delivers its settled record once, signed, with a stable Idempotency-Key', async () => {
    const runId = `${backend}-hooked`;
    await run({
      prompt: 'ping',
      run_id: runId,
      background: true,
      webhook: `${receiver.url}/ok/${runId}`,
    }).expect(202);
    await waitUntil(() => receiver.to(`/ok/${runId}`).length > 0, 'the webhook arrives');
    // Several polls of both replicas later, still once.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const [delivery, ...more] = receiver.to(`/ok/${runId}`);
    expect(more).toHaveLength(0);
    expect(delivery.body).toMatchObject({
      type: 'run.settled',
      run: { run_id: runId, status: 'completed', text: 'ping' },
    });
    expect(delivery.headers['webhook-id']).toBe(`${TENANT}/${runId}`);
    expect(delivery.headers['idempotency-key']).toBe(`${TENANT}/${runId}`);
    expect(validSignature(delivery)).toBe(true);
  });

  it('a receiver that fails first is retried until it takes the delivery', async () => {
    const runId = `${backend}-retried`;
    await run({
      prompt: 'again',
      run_id: runId,
      webhook: `${receiver.url}/fail-first/${runId}`,
    }).expect(200);
    await waitUntil(() => receiver.to(`/fail-first/${runId}`).length >= 2, 'the retry arrives');
    await new Promise((resolve) => setTimeout(resolve, 400));
    const attempts = receiver.to(`/fail-first/${runId}`);
    expect(attempts).toHaveLength(2);
    expect(new Set(attempts.map((attempt) => attempt.headers['idempotency-key'])).size).toBe(1);
    expect(attempts.every(validSignature)).toBe(true);
  });

  it('refuses a webhook the egress policy forbids, before the run starts', async () => {
    const runId = `${backend}-forbidden`;
    const res = await run({
      prompt: 'x',
      run_id: runId,
      webhook: 'http://169.254.169.254/latest',
    }).expect(400);
    expect(JSON.stringify(res.body.errors)).toContain('webhook');
    await request(one.url).get(`/v1/runs/${runId}?tenant_id=${TENANT}`).set(auth).expect(404);
  });

  it('a webhook left waiting by a process that died before marking it is delivered by the poll', async () => {
    const runId = `${backend}-orphan`;
    await run({ prompt: 'settled earlier', run_id: runId }).expect(200);
    // As a replica that died right after recording the settled run would leave it.
    await one.app
      .get(RunWebhookStore)
      .register(
        TENANT,
        runId,
        { url: `${receiver.url}/orphan/${runId}`, format: 'run', token: null },
        0,
      );
    await waitUntil(() => receiver.to(`/orphan/${runId}`).length > 0, 'the orphan is delivered');
    expect(receiver.to(`/orphan/${runId}`)[0].body.run).toMatchObject({
      run_id: runId,
      status: 'completed',
    });
  });
});

describe('run webhooks without a signing secret', () => {
  it('are refused with 422', async () => {
    const fixture = await createBackend('sqlite');
    const gateway = await startGateway({ ...fixture.env, SVC_API_KEY: KEY });
    try {
      const res = await request(gateway.url)
        .post('/v1/agent/run')
        .set(auth)
        .send({ tenant_id: TENANT, prompt: 'x', webhook: 'http://127.0.0.1:9/hook' })
        .expect(422);
      expect(res.body.type).toBe('urn:svc:problem:webhooks-unavailable');
    } finally {
      await gateway.close();
      await fixture.cleanup();
    }
  });
});
