import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { type Server, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { type BackendFixture, createBackend } from './support/backends.js';
import { waitUntil } from './support/chat-server.js';
import { collect, spawnSvc, waitReady } from './support/cli.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { MockModel, type SeenRequest, completion } from './support/mock-model.js';
import { freePort } from './support/net.js';
import {
  type ToolEndpoint,
  registerRouteTool,
  startToolEndpoint,
} from './support/tool-endpoint.js';

const KEY = 'busy-port-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';
const RUN_ID = 'orphan-1';
const LEASE_TTL_MS = 1000;
/** Sweeps every 2.5 s: the dead owner's expired lease is taken over within the wait below. */
const SURVIVOR_LEASE_TTL_MS = 5000;

const answeredByTool = (req: SeenRequest) =>
  (req.body.messages as Array<{ role: string }> | undefined)?.at(-1)?.role === 'tool';

/**
 * A run whose owner died (kill -9 during a tool call) lies there with an expired lease, the very
 * thing every serving replica's sweep takes over. A `svc serve` that cannot listen must leave it
 * alone and exit.
 */
describe('svc serve on a busy port, beside a run left by a dead owner (PostgreSQL)', () => {
  const model = new MockModel();
  let fixture: BackendFixture;
  let endpoint: ToolEndpoint;
  let busy: Server;
  let owner: ChildProcess | undefined;
  let survivor: RunningGateway | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    await model.start();
    model.reset((req) =>
      answeredByTool(req)
        ? { body: completion('done') }
        : { body: completion(null, [{ id: 'call_1', name: 'work', arguments: '{}' }]) },
    );
    endpoint = await startToolEndpoint();
    fixture = await createBackend('postgres');
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    env = {
      ...fixture.env,
      SVC_API_KEY: KEY,
      SVC_PROVIDER_URL: `${model.url}/v1`,
      SVC_LEASE_TTL_MS: String(LEASE_TTL_MS),
    };
  });
  afterAll(async () => {
    owner?.kill('SIGKILL');
    await survivor?.close();
    busy?.close();
    await fixture?.cleanup();
    await endpoint?.close();
    await model.close();
  });

  /** The run's lease and record rows exactly as stored. */
  const rows = async () => ({
    lease: await fixture.database!.query(
      'SELECT * FROM run_leases WHERE tenant_id = $1 AND run_id = $2',
      [TENANT, `run:${RUN_ID}`],
    ),
    record: await fixture.database!.query(
      `SELECT value, version, updated_at FROM state_entries
       WHERE tenant_id = $1 AND session_id = $2 AND "key" = 'record'`,
      [TENANT, `run:${RUN_ID}`],
    ),
  });
  const toolCalls = () => endpoint.received.filter((call) => call.path === '/hold-first');

  it('exits non-zero within seconds with one line, and touches no run', async () => {
    // The owner: a real `svc serve`, killed in the middle of the run's tool call.
    const port = await freePort();
    owner = spawnSvc(['serve', '--port', String(port)], env);
    const ownerExit = collect(owner, 60_000);
    const ownerUrl = `http://127.0.0.1:${port}`;
    await waitReady(ownerUrl);
    await registerRouteTool(endpoint, ownerUrl, auth, {
      tenant: TENANT,
      name: 'work',
      route: '/hold-first',
    });
    const inFlight = fetch(`${ownerUrl}/v1/agent/run`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: TENANT, toolset: 'ops', prompt: 'work', run_id: RUN_ID }),
    }).catch((error: unknown) => error);
    await waitUntil(() => toolCalls().length === 1, 'the tool call is in flight', 15_000);
    owner.kill('SIGKILL');
    expect((await ownerExit).signal).toBe('SIGKILL');
    await inFlight;

    // Its lease runs out: from now on any serving replica's sweep would take the run over.
    await waitUntil(async () => {
      const [row] = await fixture.database!.query<{ expired: boolean }>(
        `SELECT expires_at < (EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS expired
         FROM run_leases WHERE tenant_id = $1 AND run_id = $2`,
        [TENANT, `run:${RUN_ID}`],
      );
      return row?.expired === true;
    }, "the dead owner's lease expired");
    const left = await rows();
    expect(left.lease).toHaveLength(1);
    expect(JSON.parse((left.record[0] as { value: string }).value)).toMatchObject({
      status: 'running',
    });

    const busyPort = (busy.address() as AddressInfo).port;
    const child = spawnSvc(['serve', '--port', String(busyPort)], env);
    // Nest logs the listen error the moment it happens; from then on the process must end.
    let failedAt = 0;
    child.stdout?.on('data', (chunk: Buffer) => {
      if (!failedAt && chunk.toString().includes('EADDRINUSE')) failedAt = Date.now();
    });
    const result = await collect(child, 30_000);
    const exitedAt = Date.now();

    expect(result.signal).toBeNull(); // it exited by itself, not by collect's kill
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      `svc: cannot listen on 127.0.0.1:${busyPort}: address already in use`,
    ]);
    expect(failedAt).toBeGreaterThan(0);
    expect(exitedAt - failedAt).toBeLessThan(3_000); // closed at once, not left running

    // Nothing about the run changed, and its tool was not called again.
    expect(await rows()).toEqual(left);
    expect(toolCalls()).toHaveLength(1);

    // The run was there for the taking: a replica that serves takes it over and finishes it,
    // repeating the interrupted call under the same Idempotency-Key. Its own lease gets a longer
    // TTL: a 1 s lease can run out under a loaded test machine, and a run taken over again calls
    // its tool a third time (correctly, but not what this test is about).
    survivor = await startGateway({ ...env, SVC_LEASE_TTL_MS: String(SURVIVOR_LEASE_TTL_MS) });
    await waitUntil(
      async () => {
        const res = await request(survivor!.url)
          .get(`/v1/runs/${RUN_ID}?tenant_id=${TENANT}`)
          .set(auth);
        return (res.body as { status?: string }).status === 'completed';
      },
      'the survivor completed the run',
      20_000,
    );
    expect(toolCalls().map((call) => call.headers['idempotency-key'])).toEqual([
      `${RUN_ID}/1/call_1`,
      `${RUN_ID}/1/call_1`,
    ]);
  });
});
