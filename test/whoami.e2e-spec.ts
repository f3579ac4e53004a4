import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { WhoamiView } from '../src/platform/auth/whoami.js';
import { KNOWN_PERMISSIONS } from '../src/platform/config/roles.js';
import { BACKENDS } from './support/backends.js';
import { writeKeysFile } from './support/keys-file.js';
import { gatewayForSuite } from './support/suite.js';

const ROOT = 'whoami-root-key';
const KEYS = {
  operator: 'whoami-acme-operator-key',
  viewer: 'whoami-acme-viewer-key',
  auditor: 'whoami-any-auditor-key',
};
const as = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(BACKENDS)('GET /v1/whoami (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: ROOT,
    SVC_KEYS_FILE: writeKeysFile({
      keys: [
        { id: 'ops-1', key: KEYS.operator, tenant_id: 'acme', roles: ['operator'] },
        { id: 'view-1', key: KEYS.viewer, tenant_id: 'acme', roles: ['viewer'] },
        { id: 'audit-1', key: KEYS.auditor, roles: ['auditor'] },
      ],
      roles: { auditor: ['studio:read', 'audit:*'] },
    }),
  }));
  const whoami = async (key: string, headers: Record<string, string> = {}) =>
    (await request(gateway.url).get('/v1/whoami').set(as(key)).set(headers).expect(200))
      .body as WhoamiView;

  it('tells the root key it is admin of every tenant, holding every permission', async () => {
    expect(await whoami(ROOT)).toEqual({
      key_id: 'root',
      tenant_id: null,
      roles: ['admin'],
      grants: ['*'],
      permissions: [...KNOWN_PERMISSIONS].sort(),
      authenticated: true,
    });
  });

  it("tells a tenant-bound key its tenant and its roles' permissions", async () => {
    const operator = await whoami(KEYS.operator);
    expect(operator).toMatchObject({ key_id: 'ops-1', tenant_id: 'acme', roles: ['operator'] });
    expect(operator.grants).toContain('runs:*');
    expect(operator.permissions).toEqual(
      expect.arrayContaining(['approve:*', 'audit:read', 'board:read', 'runs:write', 'usage:read']),
    );
    expect(operator.permissions).not.toContain('budgets:write');
    const viewer = await whoami(KEYS.viewer);
    expect(viewer.permissions).toEqual([
      'board:read',
      'messaging:read',
      'runs:read',
      'studio:read',
      'usage:read',
    ]);
    const auditor = await whoami(KEYS.auditor);
    expect(auditor).toMatchObject({ key_id: 'audit-1', tenant_id: null, roles: ['auditor'] });
    expect(auditor.permissions).toEqual(['audit:read', 'studio:read']);
  });

  it('never shows a key, and answers only a valid one for its own tenant', async () => {
    for (const key of [ROOT, ...Object.values(KEYS)]) {
      expect(JSON.stringify(await whoami(key))).not.toContain(key);
    }
    const none = await request(gateway.url).get('/v1/whoami').expect(401);
    expect(none.headers['content-type']).toMatch(/^application\/problem\+json/);
    await request(gateway.url).get('/v1/whoami').set(as('not-a-key-at-all')).expect(401);
    // A bound key naming another tenant is refused here as on every route.
    await request(gateway.url)
      .get('/v1/whoami')
      .set(as(KEYS.viewer))
      .set('X-Tenant-Id', 'beta')
      .expect(403);
    expect(await whoami(KEYS.viewer, { 'X-Tenant-Id': 'acme' })).toMatchObject({
      tenant_id: 'acme',
    });
  });
});

describe('GET /v1/whoami with authentication off (sqlite)', () => {
  const gateway = gatewayForSuite('sqlite');

  it('says so: anonymous, every permission', async () => {
    const res = await request(gateway.url).get('/v1/whoami').expect(200);
    expect(res.body).toMatchObject({
      key_id: 'anonymous',
      tenant_id: null,
      roles: ['admin'],
      authenticated: false,
    });
    expect(res.body.permissions).toEqual([...KNOWN_PERMISSIONS].sort());
  });
});
