import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { stateMigrations } from '../migrations/index.js';
import { BACKENDS } from './support/backends.js';
import { gatewayForSuite } from './support/suite.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe.each(BACKENDS)('probes (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, { SVC_API_KEY: 'probe-test-key-1' });

  it('/healthz reports the process alive', async () => {
    const res = await request(gateway.url).get('/healthz').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('/readyz is ready once the backend is connected and migrated', async () => {
    const res = await request(gateway.url).get('/readyz').expect(200);
    expect(res.body).toEqual({
      status: 'ready',
      backend,
      migrations: { applied: stateMigrations.length, pending: [] },
    });
  });

  it('/health returns the package version only', async () => {
    const res = await request(gateway.url).get('/health').expect(200);
    expect(res.body).toEqual({ version: pkg.version });
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('/info needs a credential and then describes the deployment', async () => {
    await request(gateway.url).get('/info').expect(401);
    const res = await request(gateway.url)
      .get('/info')
      .set('Authorization', 'Bearer probe-test-key-1')
      .expect(200);
    expect(res.body).toMatchObject({
      name: 'svc-gateway',
      version: pkg.version,
      backend,
      provider: 'echo',
      surfaces: expect.objectContaining({ liveness: '/healthz', readiness: '/readyz' }),
    });
  });
});
