import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS, createBackend } from './support/backends.js';
import { mountedRoutes, startGateway } from './support/gateway.js';
import { gatewayForSuite } from './support/suite.js';
import { StandInController } from './support/stand-in.controller.js';
import { sha256Hex, writeKeysFile } from './support/keys-file.js';
import { STUDIO_FILES } from '../src/studio/studio-page.assets.js';

const ROOT_KEY = 'root-key-for-auth-tests';
const KEYS = {
  acmeOperator: 'acme-operator-key-1',
  acmeViewer: 'acme-viewer-key-1',
  runner: 'global-runner-key-1',
  auditor: 'acme-auditor-key-1',
};
// CONTRACT 2: the probes and the MCP host's and messaging webhook's health routes are public;
// so are the studio page's static files, which hold no data (docs/decisions.md).
const PUBLIC_PATHS = [
  '/healthz',
  '/readyz',
  '/health',
  '/mcp/health',
  '/v1/messaging/webhook/health',
  // The studio page and every file of it.
  ...Object.keys(STUDIO_FILES),
  // The gateway's A2A card: where its agents are, naming no tenant or tool.
  '/.well-known/agent-card.json',
  // The API description, its page and the landing page: the routes, no data (docs/decisions.md).
  '/',
  '/openapi.json',
  '/docs',
  '/docs/docs.js',
  '/docs/swagger-ui.css',
  '/docs/swagger-ui-bundle.js',
  '/docs/favicon-32x32.png',
];

function keysFile(): string {
  return writeKeysFile({
    keys: [
      {
        id: 'ops-1',
        key_sha256: sha256Hex(KEYS.acmeOperator),
        tenant_id: 'acme',
        roles: ['operator'],
      },
      { id: 'view-1', key: KEYS.acmeViewer, tenant_id: 'acme', roles: ['viewer'] },
      { id: 'run-1', key_sha256: sha256Hex(KEYS.runner), roles: ['runner'] },
      { id: 'audit-1', key: KEYS.auditor, tenant_id: 'acme', roles: ['auditor'] },
    ],
    roles: { auditor: ['studio:read'], viewer: ['studio:read', 'runs:read', 'approve:*'] },
  });
}

describe.each(BACKENDS)('authentication and authorization (%s)', (backend) => {
  const gateway = gatewayForSuite(
    backend,
    { SVC_API_KEY: ROOT_KEY, SVC_KEYS_FILE: keysFile() },
    { controllers: [StandInController] },
  );

  const as = (key: string) => ({ Authorization: `Bearer ${key}` });

  it('answers every probe without a credential and every other mounted route with 401', async () => {
    const routes = mountedRoutes(gateway.app);
    expect(routes.map((r) => r.path)).toEqual(expect.arrayContaining([...PUBLIC_PATHS, '/info']));
    for (const { method, path } of routes) {
      const res = await request(gateway.url)[method.toLowerCase() as 'get'](path);
      if (PUBLIC_PATHS.includes(path)) {
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 200 });
      } else {
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
        expect(res.headers['www-authenticate']).toBe('Bearer realm="svc"');
        const problem = { type: 'urn:svc:problem:unauthorized', status: 401 };
        if (path === '/mcp') {
          // The MCP host answers in its own style: a JSON-RPC error carrying the problem.
          expect(res.headers['content-type']).toMatch(/^application\/json/);
          expect(res.body).toMatchObject({
            jsonrpc: '2.0',
            error: { code: -32000, data: problem },
          });
        } else if (method === 'POST' && /^\/a2a\/[^/]+$/.test(path)) {
          // A2A's JSON-RPC binding answers a JSON-RPC error with the refusal's status.
          expect(res.headers['content-type']).toMatch(/^application\/json/);
          expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: -31401 } });
        } else if (/^\/v1\/(chat\/completions|models)/.test(path)) {
          // The OpenAI-compatible wire answers OpenAI's error object, as its SDKs read it.
          expect(res.headers['content-type']).toMatch(/^application\/json/);
          expect(res.body).toMatchObject({
            error: { type: 'authentication_error', code: 'unauthorized' },
          });
        } else {
          expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(res.body).toMatchObject(problem);
        }
      }
    }
  });

  it('rejects a wrong key with 401 and an invalid_token challenge', async () => {
    const res = await request(gateway.url).get('/info').set(as('not-a-real-key')).expect(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="svc", error="invalid_token"');
    expect(res.body.detail).toBe('the API key is not valid');
    await request(gateway.url).get('/info').set('X-API-Key', 'not-a-real-key').expect(401);
    await request(gateway.url).get('/info').set('Authorization', `Basic ${ROOT_KEY}`).expect(401);
  });

  it('accepts the root key as a Bearer token (any case) or as X-API-Key', async () => {
    await request(gateway.url).get('/info').set(as(ROOT_KEY)).expect(200);
    await request(gateway.url).get('/info').set('Authorization', `bearer ${ROOT_KEY}`).expect(200);
    await request(gateway.url).get('/info').set('X-API-Key', ROOT_KEY).expect(200);
  });

  it('accepts keys from SVC_KEYS_FILE given as key_sha256 or as plain key', async () => {
    const res = await request(gateway.url)
      .post('/stand-in/tenant')
      .set(as(KEYS.acmeOperator))
      .send({ tenant_id: 'acme' })
      .expect(201);
    expect(res.body).toMatchObject({ tenant_id: 'acme', key: 'ops-1' });
    await request(gateway.url).get('/info').set('X-API-Key', KEYS.acmeViewer).expect(200);
  });

  it('keeps a tenant-bound key inside its tenant on body, query and header', async () => {
    const key = as(KEYS.acmeOperator);
    const body = await request(gateway.url)
      .post('/stand-in/tenant')
      .set(key)
      .send({ tenant_id: 'globex' })
      .expect(403);
    expect(body.body).toMatchObject({ type: 'urn:svc:problem:forbidden', status: 403 });
    expect(body.body.detail).toContain('"acme"');
    await request(gateway.url).get('/stand-in/tenant?tenant_id=globex').set(key).expect(403);
    await request(gateway.url).get('/stand-in/tenant?tenant_id=acme').set(key).expect(200);
    await request(gateway.url).get('/info').set(key).set('X-Tenant-Id', 'globex').expect(403);
    // Naming its own tenant in one place does not excuse another tenant in the next.
    await request(gateway.url)
      .post('/stand-in/tenant?tenant_id=globex')
      .set(key)
      .send({ tenant_id: 'acme' })
      .expect(403);
  });

  it('lets an unbound key act for any tenant', async () => {
    for (const key of [ROOT_KEY, KEYS.runner]) {
      await request(gateway.url)
        .post('/stand-in/tenant')
        .set(as(key))
        .send({ tenant_id: 'globex' })
        .expect(201);
    }
  });

  it('grants approve:* only to roles that hold it (403 otherwise)', async () => {
    const approve = (key: string) =>
      request(gateway.url).post('/stand-in/approve').set(as(key)).send({ tenant_id: 'acme' });
    expect((await approve(ROOT_KEY)).status).toBe(201);
    expect((await approve(KEYS.acmeOperator)).status).toBe(201);
    const denied = await approve(KEYS.runner);
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toContain('approve:*');
    expect((await approve(KEYS.auditor)).status).toBe(403);
    // The keys file redefines the built-in viewer role to include approve:*.
    expect((await approve(KEYS.acmeViewer)).status).toBe(201);
  });

  it('audits authentication failures without the presented key', async () => {
    await request(gateway.url).get('/info').set(as('wrong-key-for-audit'));
    const res = await request(gateway.url)
      .get('/v1/audit?kind=auth.failed&limit=1000')
      .set(as(ROOT_KEY))
      .expect(200);
    // Repeats are summarised: the first failure of its kind in the window is the one recorded
    // (an earlier test may have made it), so it is looked for rather than expected newest.
    expect(res.body.events).toContainEqual(
      expect.objectContaining({
        kind: 'auth.failed',
        details: expect.objectContaining({
          status: 401,
          method: 'GET',
          path: '/info',
          reason: 'the API key is not valid',
          client: '127.0.0.1',
        }),
      }),
    );
    expect(JSON.stringify(res.body)).not.toContain('wrong-key-for-audit');
    // The operator role reads the audit trail, of its own tenant only when bound to one: not
    // the failures of no tenant, and naming another tenant is refused.
    const own = await request(gateway.url).get('/v1/audit').set(as(KEYS.acmeOperator)).expect(200);
    const events = (own.body as { events: Array<{ tenantId?: string }> }).events;
    expect(events.length).toBeGreaterThan(0);
    expect(events.filter((event) => event.tenantId !== 'acme')).toEqual([]);
    await request(gateway.url)
      .get('/v1/audit?tenant_id=beta')
      .set(as(KEYS.acmeOperator))
      .expect(403);
  });

  it('applies roles defined in the keys file', async () => {
    await request(gateway.url).get('/stand-in/studio').set(as(KEYS.auditor)).expect(200);
    await request(gateway.url).get('/stand-in/studio').set(as(KEYS.runner)).expect(403);
  });
});

describe.each(BACKENDS)(
  'authentication turned off: no SVC_API_KEY, no keys file (%s)',
  (backend) => {
    it('serves every route without a credential', async () => {
      const fixture = await createBackend(backend);
      const gateway = await startGateway(fixture.env, { controllers: [StandInController] });
      try {
        await request(gateway.url).get('/info').expect(200);
        await request(gateway.url).post('/stand-in/approve').send({ tenant_id: 'any' }).expect(201);
      } finally {
        await gateway.close();
        await fixture.cleanup();
      }
    });
  },
);
