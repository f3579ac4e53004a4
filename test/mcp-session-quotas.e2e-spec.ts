import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { writeKeysFile } from './support/keys-file.js';
import { INITIALIZE, mcpHeaders } from './support/mcp-client.js';
import { gatewayForSuite } from './support/suite.js';

const ROOT = 'mcp-quota-root-key';
const KEYS = {
  acme: 'mcp-quota-acme-key',
  beta: 'mcp-quota-beta-key',
  beta2: 'mcp-quota-beta-second-key',
  gamma: 'mcp-quota-gamma-key',
  any: 'mcp-quota-any-tenant-key',
};

function keysFile(): string {
  return writeKeysFile({
    keys: [
      { id: 'acme', key: KEYS.acme, tenant_id: 'acme', roles: ['runner'] },
      { id: 'beta', key: KEYS.beta, tenant_id: 'beta', roles: ['runner'] },
      { id: 'beta-2', key: KEYS.beta2, tenant_id: 'beta', roles: ['runner'] },
      { id: 'gamma', key: KEYS.gamma, tenant_id: 'gamma', roles: ['runner'] },
      { id: 'any', key: KEYS.any, roles: ['runner'] },
    ],
  });
}

const bearer = (key: string, tenant?: string) => ({
  Authorization: `Bearer ${key}`,
  ...(tenant ? { 'X-Tenant-Id': tenant } : {}),
});

function mcpClient(url: string) {
  const open = (key: string, tenant?: string) =>
    request(url)
      .post('/mcp')
      .set(mcpHeaders(bearer(key, tenant)))
      .send(INITIALIZE);
  const ping = (key: string, id: string, tenant?: string) =>
    request(url)
      .post('/mcp')
      .set(mcpHeaders({ ...bearer(key, tenant), 'Mcp-Session-Id': id }))
      .send({ jsonrpc: '2.0', id: 9, method: 'ping' });
  const opened = async (key: string, tenant?: string): Promise<string> => {
    const res = await open(key, tenant).expect(200);
    return res.headers['mcp-session-id'];
  };
  return { open, ping, opened };
}

// Sessions live in the replica's memory whatever the state backend: sqlite only.
describe('MCP session quotas: a tenant can only evict its own sessions', () => {
  // The review's numbers: 50 sessions per replica, so 10 per tenant and per key by default.
  const gateway = gatewayForSuite('sqlite', () => ({
    SVC_API_KEY: ROOT,
    SVC_KEYS_FILE: keysFile(),
    SVC_MCP_MAX_SESSIONS: '50',
  }));

  it("keeps acme's session while beta opens 50, and beta at its quota evicts only its own", async () => {
    const mcp = mcpClient(gateway.url);
    const acme = await mcp.opened(KEYS.acme);
    const beta: string[] = [];
    for (let i = 0; i < 50; i++) beta.push(await mcp.opened(KEYS.beta));
    await mcp.ping(KEYS.acme, acme).expect(200);
    // Beta keeps its 10 most recent sessions; its older ones made room.
    for (const id of beta.slice(-10)) await mcp.ping(KEYS.beta, id).expect(200);
    for (const id of beta.slice(0, 40)) await mcp.ping(KEYS.beta, id).expect(404);
    // Another key of the same tenant shares the tenant's quota: beta's oldest idle session goes.
    const second = await mcp.opened(KEYS.beta2);
    await mcp.ping(KEYS.beta, beta[40]).expect(404);
    await mcp.ping(KEYS.beta2, second).expect(200);
    await mcp.ping(KEYS.acme, acme).expect(200);
  });

  it('holds a key bound to no tenant to its quota across tenants, evicting its own sessions', async () => {
    const mcp = mcpClient(gateway.url);
    const acme = await mcp.opened(KEYS.acme);
    const any: string[] = [];
    for (let i = 0; i < 12; i++) any.push(await mcp.opened(KEYS.any, `tenant-${i}`));
    await mcp.ping(KEYS.any, any[0], 'tenant-0').expect(404);
    await mcp.ping(KEYS.any, any[1], 'tenant-1').expect(404);
    await mcp.ping(KEYS.any, any[2], 'tenant-2').expect(200);
    await mcp.ping(KEYS.any, any[11], 'tenant-11').expect(200);
    await mcp.ping(KEYS.acme, acme).expect(200);
  });
});

describe('MCP sessions on a full replica', () => {
  const gateway = gatewayForSuite('sqlite', () => ({
    SVC_API_KEY: ROOT,
    SVC_KEYS_FILE: keysFile(),
    SVC_MCP_MAX_SESSIONS: '4',
    SVC_MCP_SESSIONS_PER_TENANT: '2',
  }));

  it('answers 503 with Retry-After to a tenant with no session rather than evict another', async () => {
    const mcp = mcpClient(gateway.url);
    const acme = [await mcp.opened(KEYS.acme), await mcp.opened(KEYS.acme)];
    const beta = [await mcp.opened(KEYS.beta), await mcp.opened(KEYS.beta)];

    const refused = await mcp.open(KEYS.gamma).expect(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(refused.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringMatching(/^Service Unavailable: /) },
    });

    // A tenant that holds sessions makes room among its own.
    await mcp.ping(KEYS.acme, acme[0]).expect(200); // acme[1] is now acme's least recently used
    const third = await mcp.opened(KEYS.acme);
    await mcp.ping(KEYS.acme, acme[1]).expect(404);
    await mcp.ping(KEYS.acme, acme[0]).expect(200);
    await mcp.ping(KEYS.acme, third).expect(200);
    for (const id of beta) await mcp.ping(KEYS.beta, id).expect(200);
  });
});
