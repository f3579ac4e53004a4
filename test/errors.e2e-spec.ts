import { describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { gatewayForSuite } from './support/suite.js';
import { StandInController } from './support/stand-in.controller.js';

const KEY = 'errors-test-root-key';
const auth = { Authorization: `Bearer ${KEY}` };

function expectProblem(res: request.Response, status: number, type: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({
    type: `urn:svc:problem:${type}`,
    status,
    title: expect.any(String),
  });
  expect(typeof res.body.detail).toBe('string');
  // Every answer carries its request id, a refused body too (it is refused after the id is given).
  expect(res.headers['x-request-id']).toMatch(/^\S+$/);
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
}

describe.each(BACKENDS)('errors are problem bodies (%s)', (backend) => {
  const gateway = gatewayForSuite(
    backend,
    { SVC_API_KEY: KEY, SVC_MAX_BODY_BYTES: '2048' },
    { controllers: [StandInController] },
  );

  const post = (path: string) => request(gateway.url).post(path).set(auth);

  it('answers malformed JSON with 400', async () => {
    const res = await post('/stand-in/tenant')
      .set('Content-Type', 'application/json')
      .send('{"tenant_id": ');
    expectProblem(res, 400, 'malformed-json');
  });

  it('answers a body over SVC_MAX_BODY_BYTES with 413', async () => {
    const res = await post('/stand-in/tenant').send({ tenant_id: 'acme', pad: 'x'.repeat(4096) });
    expectProblem(res, 413, 'payload-too-large');
  });

  it('answers a text/plain or form body with 415', async () => {
    expectProblem(
      await post('/stand-in/tenant').set('Content-Type', 'text/plain').send('tenant_id=acme'),
      415,
      'unsupported-media-type',
    );
    expectProblem(
      await post('/stand-in/tenant')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('tenant_id=acme'),
      415,
      'unsupported-media-type',
    );
  });

  it('answers an unknown path with 404', async () => {
    expectProblem(await request(gateway.url).get('/v1/nothing-here').set(auth), 404, 'not-found');
    expectProblem(await post('/healthz'), 404, 'not-found');
  });

  it('answers a missing tenant_id, an unknown field and a bad nested field with 400 and field errors', async () => {
    const missing = await post('/stand-in/tenant').send({});
    expectProblem(missing, 400, 'validation');
    expect(missing.body.errors).toEqual(
      expect.arrayContaining([{ path: 'tenant_id', message: expect.any(String) }]),
    );

    const unknown = await post('/stand-in/tenant').send({ tenant_id: 'acme', surprise: true });
    expectProblem(unknown, 400, 'validation');
    expect(unknown.body.errors).toEqual([
      { path: 'surprise', message: 'property surprise should not exist' },
    ]);

    const nested = await post('/stand-in/tenant').send({
      tenant_id: 'acme',
      count: 99,
      items: [{ name: 3 }],
    });
    expectProblem(nested, 400, 'validation');
    const paths = (nested.body as { errors: Array<{ path: string }> }).errors.map((e) => e.path);
    expect(paths.sort()).toEqual(['count', 'items[0].name']);
  });

  it('hides internals of an unexpected error behind a 500 with a request id', async () => {
    const res = await request(gateway.url).get('/stand-in/crash').set(auth);
    expectProblem(res, 500, 'internal');
    expect(JSON.stringify(res.body)).not.toContain('postgres://');
    expect(res.body.detail).toContain('request_id');
  });

  it('keeps serving after every kind of bad input, including a body cut off mid-stream', async () => {
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${gateway.url}/stand-in/tenant`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json', 'Content-Length': '500' },
      });
      req.on('error', () => resolve());
      req.write('{"tenant_id": "ac');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    await request(gateway.url).get('/healthz').expect(200);
    const ok = await post('/stand-in/tenant').send({ tenant_id: 'acme' });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ tenant_id: 'acme', body_type: 'TenantRequestDto' });
  });
});

describe.each(BACKENDS)('per-tenant rate limit (%s)', (backend) => {
  const gateway = gatewayForSuite(
    backend,
    { SVC_API_KEY: KEY, SVC_RATE_LIMIT_PER_MIN: '3' },
    { controllers: [StandInController] },
  );

  const call = (tenant: string) =>
    request(gateway.url).get(`/stand-in/tenant?tenant_id=${tenant}`).set(auth);

  it('answers 429 with Retry-After once a tenant spends its budget, and only for that tenant', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await call('busy');
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-remaining']).toBe(String(2 - i));
    }
    const limited = await call('busy');
    expectProblem(limited, 429, 'rate-limited');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    expect((await call('quiet')).status).toBe(200);
    await request(gateway.url).get('/healthz').expect(200);
    await request(gateway.url).get('/readyz').expect(200);
  });

  it('answers a bad key with 401 before any budget is spent', async () => {
    const res = await request(gateway.url)
      .get('/stand-in/tenant?tenant_id=busy')
      .set('X-API-Key', 'wrong-key-123');
    expect(res.status).toBe(401);
  });
});
