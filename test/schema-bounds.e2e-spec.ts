import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import request from 'supertest';
import { ToolsetRepository } from '../src/tools/toolset-repository.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { collect, spawnSvc, waitReady } from './support/cli.js';
import { freePort } from './support/net.js';
import { gatewayForSuite } from './support/suite.js';
import { type ToolEndpoint, startToolEndpoint } from './support/tool-endpoint.js';

/**
 * Issue 12, High 1: a tenant's JSON Schema must be evaluated in bounded time. The gateway runs
 * as a real `svc serve` process here, so this test can keep probing /healthz while the hostile
 * call is in flight: before the fix, one call with the review's ReDoS pattern held the event
 * loop (and /healthz) for 22 s.
 */

const KEY = 'schema-bounds-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
/** Generous: a stalled event loop takes tens of seconds; a healthy one answers in milliseconds. */
const PROMPT_MS = 3000;

interface Probed {
  status: number;
  body: { type?: string; errors?: Array<{ path: string; message: string }> };
  /** The slowest /healthz answer while the call was in flight. */
  slowestHealthzMs: number;
  healthzAnswered: number;
}

/** Sends `call` and probes /healthz every 50 ms until it is answered. */
async function whileProbing(url: string, call: () => Promise<Response>): Promise<Probed> {
  let done = false;
  let slowest = 0;
  let answered = 0;
  const probing = (async () => {
    while (!done) {
      const started = Date.now();
      const res = await fetch(`${url}/healthz`);
      expect(res.status).toBe(200);
      slowest = Math.max(slowest, Date.now() - started);
      answered++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const res = await call().finally(() => (done = true));
  await probing;
  return {
    status: res.status,
    body: (await res.json()) as Probed['body'],
    slowestHealthzMs: slowest,
    healthzAnswered: answered,
  };
}

let endpoint: ToolEndpoint;
beforeAll(async () => {
  endpoint = await startToolEndpoint();
});
afterAll(() => endpoint.close());

describe.each(BACKENDS)('tenant schemas are evaluated in bounded time (%s)', (backend) => {
  let fixture: BackendFixture;
  let server: ChildProcess;
  let exited: ReturnType<typeof collect>;
  let url: string;

  beforeAll(async () => {
    fixture = await createBackend(backend);
    const port = await freePort();
    server = spawnSvc(['serve', '--port', String(port)], { ...fixture.env, SVC_API_KEY: KEY });
    exited = collect(server, 120_000);
    url = `http://127.0.0.1:${port}`;
    await waitReady(url);
  });
  afterAll(async () => {
    server.kill('SIGTERM');
    await exited;
    await fixture.cleanup();
  });

  const register = (name: string, parameters: object) =>
    request(url)
      .put(`/v1/toolsets/cpu/tools/${name}`)
      .set(auth)
      .send({
        tenant_id: 'ta',
        description: 'hostile schema',
        parameters,
        endpoint: { url: `${endpoint.url}/echo` },
      });
  const call = (name: string, args: unknown) => () =>
    fetch(`${url}/v1/tools/cpu/${name}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: 'ta', arguments: args }),
    });

  it("answers the review's ReDoS call at once, and /healthz keeps answering", async () => {
    await register('redos2', {
      type: 'object',
      properties: { s: { type: 'string', pattern: '^(a+)+$' } },
    }).expect(200);
    const probed = await whileProbing(url, call('redos2', { s: `${'a'.repeat(31)}!` }));
    expect(probed).toMatchObject({
      status: 422,
      body: {
        type: 'urn:svc:problem:invalid-arguments',
        errors: [{ path: 's', message: 'must match pattern "^(a+)+$"' }],
      },
    });
    expect(probed.healthzAnswered).toBeGreaterThan(0);
    expect(probed.slowestHealthzMs).toBeLessThan(PROMPT_MS);
  });

  it('answers a 20,000-item uniqueItems array, and /healthz keeps answering', async () => {
    await register('unique', {
      type: 'object',
      properties: { items: { type: 'array', uniqueItems: true } },
    }).expect(200);
    const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i, v: `value-${i}` }));
    const probed = await whileProbing(url, call('unique', { items }));
    // Checked in linear time (200 from the endpoint), or stopped at the deadline (422).
    expect([200, 422]).toContain(probed.status);
    expect(probed.slowestHealthzMs).toBeLessThan(PROMPT_MS);

    const duplicate = await call('unique', { items: [...items.slice(0, 100), items[5]] })();
    expect(duplicate.status).toBe(422);
    expect(await duplicate.json()).toMatchObject({
      errors: [
        {
          path: 'items',
          message: 'must NOT have duplicate items (items ## 5 and 100 are identical)',
        },
      ],
    });
  });

  it('stops work that multiplies ($ref fan-out) with 422 arguments-too-complex', async () => {
    await register('fanout', {
      type: 'object',
      $defs: {
        t: {
          anyOf: [
            { type: 'array', items: { $ref: '#/$defs/t' } },
            { type: 'array', items: { $ref: '#/$defs/t' } },
          ],
          not: { type: 'array', maxItems: 0 },
        },
      },
      properties: { x: { $ref: '#/$defs/t' } },
    }).expect(200);
    let nested: unknown = [];
    for (let i = 0; i < 40; i++) nested = [nested];
    const probed = await whileProbing(url, call('fanout', { x: nested }));
    expect(probed).toMatchObject({
      status: 422,
      body: { type: 'urn:svc:problem:arguments-too-complex' },
    });
    expect(probed.slowestHealthzMs).toBeLessThan(PROMPT_MS);
  });

  it('refuses at registration what cannot be evaluated in linear time, with 400 and the path', async () => {
    const res = await register('lookahead', {
      type: 'object',
      properties: { user: { type: 'string', pattern: '^(?!admin$)[a-z]+$' } },
      patternProperties: { '^(x)\\1$': {} },
    }).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.errors).toEqual([
      {
        path: 'parameters.properties.user.pattern',
        message: expect.stringMatching(/^uses lookahead .*linear-time pattern engine \(RE2\)/),
      },
      {
        path: 'parameters.patternProperties["^(x)\\\\1$"]',
        message: expect.stringMatching(/^uses a backreference/),
      },
    ]);
  });
});

describe.each(BACKENDS)('a stored schema that predates the checks (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, { SVC_API_KEY: KEY });

  it('fails closed on every call: 422 tool-schema-unsupported', async () => {
    const callsBefore = endpoint.received.length;
    // Written past registration, as a schema stored by an earlier version would be.
    await gateway.app.get(ToolsetRepository).update('ta', 'legacy', () => ({
      old: {
        description: 'registered before patterns ran on RE2',
        parameters: {
          type: 'object',
          properties: { s: { type: 'string', pattern: '^(?=a)(a+)+$' } },
        },
        endpoint: { url: `${endpoint.url}/echo` },
      },
    }));
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await request(gateway.url)
        .post('/v1/tools/legacy/old')
        .set(auth)
        .send({ tenant_id: 'ta', arguments: { s: `${'a'.repeat(31)}!` } })
        .expect(422);
      expect(res.body).toMatchObject({
        type: 'urn:svc:problem:tool-schema-unsupported',
        detail: expect.stringMatching(/parameters\.properties\.s\.pattern uses lookahead/),
      });
    }
    expect(endpoint.received).toHaveLength(callsBefore); // the tool was never called
  });
});
