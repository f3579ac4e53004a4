import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { freePort } from './support/net.js';
import { dsnFor, type TestDatabase, createTestDatabase } from './support/postgres.js';
import { startGateway } from './support/gateway.js';
import { TcpProxy } from './support/tcp-proxy.js';

async function waitForStatus(
  url: string,
  status: number,
  timeoutMs = 20_000,
): Promise<request.Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(url).get('/readyz');
    if (res.status === status || Date.now() > deadline) return res;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('readiness follows the PostgreSQL backend', () => {
  it('is not_ready (503) with a DSN pointing at a closed port, while /healthz stays 200', async () => {
    const port = await freePort();
    const gateway = await startGateway({
      SVC_STATE_BACKEND: 'postgres',
      SVC_STATE_DSN: `postgres://postgres@127.0.0.1:${port}/nowhere`,
    });
    try {
      const ready = await request(gateway.url).get('/readyz').expect(503);
      expect(ready.body).toMatchObject({ status: 'not_ready', backend: 'postgres' });
      expect(ready.body.reason).toEqual(expect.stringContaining('ECONNREFUSED'));
      await request(gateway.url).get('/healthz').expect(200, { status: 'ok' });
    } finally {
      await gateway.close();
    }
  });

  describe('when the database goes away and comes back', () => {
    let database: TestDatabase;
    let proxy: TcpProxy;

    beforeAll(async () => {
      database = await createTestDatabase();
      const target = new URL(database.dsn);
      proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
      await proxy.start();
    });
    afterAll(async () => {
      await proxy?.stop();
      await database?.drop();
    });

    it('turns not_ready during the outage and ready again afterwards, without a restart', async () => {
      const dsn = dsnFor(database.name, `postgres://postgres@127.0.0.1:${proxy.port}/x`);
      const gateway = await startGateway({ SVC_STATE_BACKEND: 'postgres', SVC_STATE_DSN: dsn });
      try {
        await request(gateway.url).get('/readyz').expect(200);

        await proxy.stop();
        const down = await waitForStatus(gateway.url, 503);
        expect(down.status).toBe(503);
        expect(down.body).toMatchObject({ status: 'not_ready', backend: 'postgres' });
        expect(typeof down.body.reason).toBe('string');
        await request(gateway.url).get('/healthz').expect(200);

        await proxy.start();
        const up = await waitForStatus(gateway.url, 200);
        expect(up.body).toMatchObject({ status: 'ready', backend: 'postgres' });
      } finally {
        await gateway.close();
      }
    });

    it('becomes ready by itself when the database appears after the process started', async () => {
      await proxy.stop();
      const dsn = dsnFor(database.name, `postgres://postgres@127.0.0.1:${proxy.port}/x`);
      const gateway = await startGateway({ SVC_STATE_BACKEND: 'postgres', SVC_STATE_DSN: dsn });
      try {
        await request(gateway.url).get('/readyz').expect(503);
        await proxy.start();
        const up = await waitForStatus(gateway.url, 200);
        expect(up.body).toMatchObject({ status: 'ready', migrations: { pending: [] } });
      } finally {
        await gateway.close();
      }
    });
  });
});
