import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { type BackendFixture, createBackend } from './support/backends.js';
import { waitUntil } from './support/chat-server.js';
import { LogCapture, type RunningGateway, startGateway } from './support/gateway.js';
import { freePort } from './support/net.js';
import { dsnFor } from './support/postgres.js';
import { isUnavailableProblem } from './support/surface-load.js';
import { TcpProxy } from './support/tcp-proxy.js';

const KEY = 'board-outage-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';
const logs = new LogCapture();

let fixture: BackendFixture;
beforeAll(async () => {
  fixture = await createBackend('postgres');
});
afterAll(async () => fixture?.cleanup());

/** The board's surfaces: the REST board and its tools. */
const boardCalls = (url: string) => ({
  list: () => request(url).get(`/v1/board?tenant_id=${TENANT}`).set(auth),
  create: (title: string) =>
    request(url).post('/v1/board/cards').set(auth).send({ tenant_id: TENANT, title }),
  tool: () =>
    request(url)
      .post('/v1/tools/board/board_list')
      .set(auth)
      .send({ tenant_id: TENANT, arguments: {} }),
});

describe('a board database that cannot be reached at start', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    const port = await freePort();
    gateway = await startGateway(
      {
        ...fixture.env,
        SVC_API_KEY: KEY,
        SVC_BOARD_DB: `postgres://kanban:hunter2@127.0.0.1:${port}/board`,
      },
      { logs },
    );
  });
  afterAll(async () => gateway?.close());

  it('leaves the replica not ready, naming the board, while /healthz stays 200', async () => {
    const res = await request(gateway.url).get('/readyz').expect(503);
    expect(res.body).toEqual({
      status: 'not_ready',
      backend: 'postgres',
      reason: expect.stringMatching(/^board: .*ECONNREFUSED/),
      board: { backend: 'postgres', reason: expect.stringContaining('ECONNREFUSED') },
    });
    await request(gateway.url).get('/healthz').expect(200);
  });

  it('answers board calls 503 with Retry-After; the rest of the gateway serves', async () => {
    const calls = boardCalls(gateway.url);
    for (const res of [await calls.list(), await calls.create('x'), await calls.tool()]) {
      expect(isUnavailableProblem(res)).toBe(true);
      expect(res.body.detail).toMatch(/board database \(postgres\) is not ready/);
      expect(JSON.stringify(res.body)).not.toContain('hunter2');
    }
    await request(gateway.url).get(`/v1/toolsets?tenant_id=${TENANT}`).set(auth).expect(200);
  });

  it('never shows the board DSN password in answers or logs', async () => {
    const ready = await request(gateway.url).get('/readyz');
    expect(JSON.stringify(ready.body)).not.toContain('hunter2');
    // (The test DSNs' user name, `postgres`, is a token to the scrubber, hence no backend name.)
    expect(logs.text).toMatch(/board database \(.*\) not ready: .*ECONNREFUSED/);
    expect(logs.text).not.toContain('hunter2');
  });
});

describe('when the board database goes away and comes back', () => {
  let proxy: TcpProxy;
  let gateway: RunningGateway;
  beforeAll(async () => {
    const target = new URL(fixture.database!.dsn);
    proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    // The state stays reachable; only the board's connections go through the proxy.
    const board = dsnFor(fixture.database!.name, `postgres://postgres@127.0.0.1:${proxy.port}/x`);
    gateway = await startGateway({ ...fixture.env, SVC_API_KEY: KEY, SVC_BOARD_DB: board });
  });
  afterAll(async () => {
    await gateway?.close();
    await proxy?.stop();
  });

  it('answers 503 with Retry-After during the outage and serves the same board after it', async () => {
    const calls = boardCalls(gateway.url);
    const before = await calls.create('Before the outage').expect(201);

    await proxy.stop();
    let down: request.Response | undefined;
    await waitUntil(async () => (down = await calls.list()).status !== 200, 'the board fails');
    expect(isUnavailableProblem(down!)).toBe(true);
    expect(down!.body.detail).toMatch(/board database \(postgres\) cannot be reached/);
    expect(isUnavailableProblem(await calls.create('During the outage'))).toBe(true);
    expect(isUnavailableProblem(await calls.tool())).toBe(true);
    const ready = await request(gateway.url).get('/readyz').expect(503);
    expect(ready.body.reason).toMatch(/^board: /);

    await proxy.start();
    await waitUntil(async () => (await calls.list()).status === 200, 'the board is back');
    const cards = ((await calls.list()).body as { columns: Array<{ cards: unknown[] }> }).columns[0]
      .cards;
    expect(cards).toEqual([before.body]);
    await calls.create('After the outage').expect(201);
    await request(gateway.url).get('/readyz').expect(200);
  });
});
