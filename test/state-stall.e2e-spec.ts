import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { waitUntil } from './support/chat-server.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { type TestDatabase, createTestDatabase, dsnFor } from './support/postgres.js';
import { TcpProxy } from './support/tcp-proxy.js';

const KEY = 'stall-root-key';
const auth = { Authorization: `Bearer ${KEY}` };

describe('a PostgreSQL backend that stops answering without closing its connections', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let gateway: RunningGateway;

  beforeAll(async () => {
    database = await createTestDatabase();
    const target = new URL(database.dsn);
    proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    gateway = await startGateway({
      SVC_API_KEY: KEY,
      SVC_STATE_BACKEND: 'postgres',
      SVC_STATE_DSN: dsnFor(database.name, `postgres://postgres@127.0.0.1:${proxy.port}/x`),
      SVC_STATE_QUERY_TIMEOUT_MS: '1000',
    });
  });
  afterAll(async () => {
    proxy?.thaw();
    await gateway?.close();
    await proxy?.stop();
    await database?.drop();
  });

  const getRun = () =>
    request(gateway.url).get('/v1/runs/nowhere?tenant_id=acme').set(auth).timeout(15_000);

  it('answers 503 with Retry-After instead of hanging, and serves again once it answers', async () => {
    expect((await getRun()).status).toBe(404);

    proxy.freeze();
    const stalled = await getRun();
    expect(stalled.status).toBe(503);
    expect(stalled.headers['retry-after']).toMatch(/^\d+$/);
    expect(stalled.body).toMatchObject({ type: 'urn:svc:problem:state-unavailable' });

    proxy.thaw();
    await waitUntil(
      async () => (await getRun()).status === 404,
      'the gateway serves again',
      15_000,
    );
  });
});
