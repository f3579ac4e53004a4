import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RecordedAuditEvent } from '../src/platform/audit/audit-event.js';
import { AuditSink } from '../src/platform/audit/audit-sink.js';
import { MemoryAuditSink } from '../src/platform/audit/memory-audit.sink.js';
import { BACKENDS, createBackend } from './support/backends.js';
import { startGateway } from './support/gateway.js';
import { writeKeysFile } from './support/keys-file.js';
import { INITIALIZE, mcpHeaders } from './support/mcp-client.js';
import { WEBHOOK, signatureHeaders } from './support/slack-events.js';
import { gatewayForSuite } from './support/suite.js';

const ROOT = 'auth-flood-root-key';
const SECRET = 'auth-flood-signing-secret';
const KEYS = { auditor: 'audited-auditor-key', noisy: 'noisy-runner-key' };
const LIMIT = 10;

const as = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Runs `count` requests, `parallel` at a time; returns their statuses in order. */
async function flood(
  count: number,
  send: (i: number) => request.Test,
  parallel = 25,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let start = 0; start < count; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - start) }, (_, j) =>
      send(start + j),
    );
    for (const res of await Promise.all(batch)) statuses.push(res.status);
  }
  return statuses;
}

describe.each(BACKENDS)('failed authentication is limited and summarised (%s)', (backend) => {
  // Clients are told apart by X-Forwarded-For, which the gateway honours from a loopback proxy.
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: ROOT,
    SVC_KEYS_FILE: writeKeysFile({
      keys: [
        { id: 'auditor', key: KEYS.auditor, tenant_id: 'audited', roles: ['auditor'] },
        { id: 'noisy', key: KEYS.noisy, tenant_id: 'noisy', roles: ['runner'] },
      ],
      roles: { auditor: ['audit:read'] },
    }),
    SVC_MESSAGING_SECRET: SECRET,
    SVC_AUTH_FAILURE_LIMIT: String(LIMIT),
    SVC_TRUST_PROXY: 'loopback',
    SVC_AUDIT_EVENTS_PER_TENANT: '100',
  }));
  const from = (client: string) => ({ 'X-Forwarded-For': client });
  const badSignature = (client: string) =>
    request(gateway.url)
      .post(WEBHOOK)
      .set(from(client))
      .set('Content-Type', 'application/json')
      .set(signatureHeaders(SECRET, '{}', { secret: 'not-the-secret' }))
      .send('{}');
  const auditAsRoot = async (query: string): Promise<RecordedAuditEvent[]> => {
    const res = await request(gateway.url)
      .get(`/v1/audit?limit=1000&${query}`)
      .set(from('203.0.113.250'))
      .set(as(ROOT))
      .expect(200);
    return res.body.events as RecordedAuditEvent[];
  };

  it('answers 429 with Retry-After once a client has spent its budget, even for a valid key', async () => {
    const client = '198.51.100.1';
    const statuses = await flood(LIMIT + 30, () =>
      request(gateway.url).get('/v1/studio').set(from(client)).set(as('wrong-key-123')),
    );
    expect(statuses.slice(0, LIMIT)).toEqual(new Array(LIMIT).fill(401));
    expect(statuses.slice(LIMIT)).toEqual(new Array(30).fill(429));

    const refused = await request(gateway.url).get('/info').set(from(client)).set(as(ROOT));
    expect(refused.status).toBe(429); // no oracle: a blocked client learns nothing of its keys
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ type: 'urn:svc:problem:auth-rate-limited', status: 429 });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Every surface that checks a credential refuses it: MCP, metrics, the signed webhook.
    await request(gateway.url).post('/mcp').set(from(client)).set(mcpHeaders()).expect(429);
    await request(gateway.url).get('/metrics').set(from(client)).expect(429);
    expect((await badSignature(client)).status).toBe(429);
    // Probes stay public, and other clients are not affected.
    await request(gateway.url).get('/healthz').set(from(client)).expect(200);
    await request(gateway.url).get('/info').set(from('198.51.100.2')).set(as(ROOT)).expect(200);
  });

  it('counts every way authentication can fail against the same budget', async () => {
    const client = '198.51.100.3';
    const ways = [
      () => request(gateway.url).get('/metrics').set(from(client)),
      () => request(gateway.url).get('/v1/studio').set(from(client)).set('X-API-Key', 'nope-1234'),
      () =>
        request(gateway.url)
          .post('/mcp')
          .set(from(client))
          .set(mcpHeaders(as('wrong-mcp-key')))
          .send(INITIALIZE),
      () => badSignature(client),
    ];
    const statuses = await flood(LIMIT, (i) => ways[i % ways.length](), 1);
    expect(statuses).toEqual(new Array(LIMIT).fill(401));
    for (const way of ways) expect((await way()).status).toBe(429);
  });

  it("keeps a tenant's audit events through floods of anonymous failures and of another tenant", async () => {
    await request(gateway.url)
      .post('/v1/tools/default/echo')
      .set(as(ROOT))
      .send({ tenant_id: 'audited', arguments: { text: 'remember me' } })
      .expect(200);

    // Anonymous: 40 clients, each failing with wrong keys and bad signatures past its budget:
    // three kinds of failure each, more than the 100 events the ring of no tenant keeps.
    const clients = Array.from({ length: 40 }, (_, i) => `192.0.2.${i + 1}`);
    const anonymous = await flood(clients.length * (LIMIT + 4), (i) => {
      const client = clients[i % clients.length];
      return Math.floor(i / clients.length) % 2
        ? badSignature(client)
        : request(gateway.url)
            .get('/v1/studio')
            .set(from(client))
            .set(as(`wrong-${i}`));
    });
    expect(anonymous.filter((s) => s === 429).length).toBeGreaterThan(0);
    // Another tenant: 110 tool calls and 10 refusals (403) of its own key.
    const noisy = await flood(120, (i) =>
      i % 12 === 0
        ? request(gateway.url).get('/v1/audit').set(from('203.0.113.9')).set(as(KEYS.noisy))
        : request(gateway.url)
            .post('/v1/tools/default/echo')
            .set(from('203.0.113.9'))
            .set(as(KEYS.noisy))
            .send({ tenant_id: 'noisy', arguments: { text: `noise ${i}` } }),
    );
    expect(new Set(noisy)).toEqual(new Set([200, 403]));

    const own = await request(gateway.url)
      .get('/v1/audit?limit=1000')
      .set(as(KEYS.auditor))
      .expect(200);
    const events = own.body.events as RecordedAuditEvent[];
    expect(events).toEqual([
      expect.objectContaining({
        kind: 'tool.invoked',
        tenantId: 'audited',
        details: expect.objectContaining({ tool: 'echo' }),
      }),
    ]);
    // A tenant-bound key never sees events of no tenant; an unbound key does.
    const failures = await auditAsRoot('kind=auth.failed');
    const anonymousKept = failures.filter((e) => e.tenantId === undefined).length;
    const noisyKept = (await auditAsRoot('tenant_id=noisy')).length;
    if (gateway.app.get(AuditSink) instanceof MemoryAuditSink) {
      // In memory the flood filled only the ring of no tenant (100 events here), evicting its own.
      expect(anonymousKept).toBe(100);
      expect(noisyKept).toBe(100);
    } else {
      // The state backend keeps them all (until their retention).
      expect(anonymousKept).toBeGreaterThan(100);
      expect(noisyKept).toBeGreaterThan(100);
    }
  });

  it('records the first failure of a kind and the refusals, not every request', async () => {
    const client = '198.51.100.4';
    await flood(LIMIT + 10, () =>
      request(gateway.url).get('/v1/studio').set(from(client)).set(as('wrong-key-456')),
    );
    const mine = (await auditAsRoot('kind=auth.failed')).filter(
      (e) => e.details.client === client && e.details.summary === undefined,
    );
    expect(mine.map((e) => [e.details.status, e.details.reason])).toEqual([
      [429, 'too many failed authentications from this address'],
      [401, 'the API key is not valid'],
    ]);
    expect(JSON.stringify(mine)).not.toContain('wrong-key-456');
  });
});

/**
 * The auth.failed events a closed gateway recorded: from its memory sink, or, from the state
 * backend, through a gateway started again on it (so the last window reached the database).
 */
async function recordedAfterClose(
  sink: AuditSink,
  backendEnv: Record<string, string>,
): Promise<RecordedAuditEvent[]> {
  if (sink instanceof MemoryAuditSink) return sink.list({ kind: 'auth.failed', limit: 1000 });
  const again = await startGateway({ ...backendEnv, SVC_API_KEY: ROOT });
  try {
    const res = await request(again.url)
      .get('/v1/audit?kind=auth.failed&limit=1000')
      .set(as(ROOT))
      .expect(200);
    return res.body.events as RecordedAuditEvent[];
  } finally {
    await again.close();
  }
}

describe.each(BACKENDS)('failed authentications summarised per window (%s)', (backend) => {
  it('records one event per kind and a summary with the count of the rest', async () => {
    const fixture = await createBackend(backend);
    const gateway = await startGateway({
      ...fixture.env,
      SVC_API_KEY: ROOT,
      SVC_AUTH_FAILURE_LIMIT: '0', // summarising alone, without the limit
    });
    let open = true;
    try {
      await flood(300, (i) =>
        request(gateway.url)
          .get('/v1/studio')
          .set(as(`wrong-${i}`)),
      );
      await flood(100, () => request(gateway.url).get('/v1/studio'));
      // Within the 60 s window nothing is summarised yet; shutdown records the last window.
      const sink = gateway.app.get(AuditSink);
      await gateway.close();
      open = false;
      const events = (await recordedAfterClose(sink, fixture.env)).reverse();
      expect(events.map((e) => e.details)).toEqual([
        expect.objectContaining({ reason: 'the API key is not valid', status: 401 }),
        expect.objectContaining({
          reason: 'an API key is required (Authorization: Bearer <key> or X-API-Key)',
        }),
        expect.objectContaining({ reason: 'the API key is not valid', summary: true, count: 299 }),
        expect.objectContaining({
          reason: expect.stringMatching(/^an API key is required/),
          summary: true,
          count: 99,
        }),
      ]);
    } finally {
      if (open) await gateway.close();
      await fixture.cleanup();
    }
  });
});

// The limiter itself keeps no state in the backend: sqlite only.
describe('the client address without SVC_TRUST_PROXY', () => {
  const gateway = gatewayForSuite('sqlite', { SVC_API_KEY: ROOT, SVC_AUTH_FAILURE_LIMIT: '5' });

  it('is the TCP peer: a client cannot walk past the limit by naming other addresses', async () => {
    const statuses = await flood(
      10,
      (i) =>
        request(gateway.url)
          .get('/v1/studio')
          .set('X-Forwarded-For', `198.51.100.${i + 1}`)
          .set(as('wrong-key-789')),
      1,
    );
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
  });
});
