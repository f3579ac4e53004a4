import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RecordedAuditEvent } from '../src/platform/audit/audit-event.js';
import { waitUntil } from './support/chat-server.js';
import { LogCapture, type RunningGateway, startGateway } from './support/gateway.js';
import { type TestDatabase, createTestDatabase, dsnFor } from './support/postgres.js';
import { TcpProxy } from './support/tcp-proxy.js';

const ROOT = 'audit-outage-root-key';
const auth = { Authorization: `Bearer ${ROOT}` };

const logs = new LogCapture();
let database: TestDatabase;
let proxy: TcpProxy;
let gateway: RunningGateway;

beforeAll(async () => {
  database = await createTestDatabase();
  const target = new URL(database.dsn);
  proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
  await proxy.start();
  gateway = await startGateway(
    {
      SVC_STATE_BACKEND: 'postgres',
      SVC_STATE_DSN: dsnFor(database.name, `postgres://postgres@127.0.0.1:${proxy.port}/x`),
      SVC_API_KEY: ROOT,
    },
    { logs },
  );
});
afterAll(async () => {
  await gateway?.close();
  await proxy?.stop();
  await database?.drop();
});

const metric = (text: string, name: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
};

describe('the audit trail in PostgreSQL while the database is away', () => {
  it('never holds up what it records, keeps the events and writes them once the database is back', async () => {
    const before = await request(gateway.url).get('/metrics').set(auth).expect(200);
    expect(metric(before.text, 'svc_audit_events_dropped_total')).toBe(0);

    await proxy.stop();
    await waitUntil(
      async () => (await request(gateway.url).get('/readyz')).status === 503,
      '/readyz reports the outage',
    );
    // Failed authentications are recorded and answered at once, the database or not.
    const started = Date.now();
    for (let i = 0; i < 5; i++) {
      await request(gateway.url)
        .get('/info')
        .set({ Authorization: `Bearer wrong-while-down-${i}`, 'X-Forwarded-For': `192.0.2.${i}` })
        .expect(401);
    }
    expect(Date.now() - started).toBeLessThan(2_000);
    // Reading the trail needs the database: a 503 problem, not a wait.
    const refused = await request(gateway.url).get('/v1/audit').set(auth);
    expect(refused.status).toBe(503);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.headers['retry-after']).toBeDefined();
    const during = await request(gateway.url).get('/metrics').set(auth).expect(200);
    expect(metric(during.text, 'svc_audit_events_buffered')).toBeGreaterThan(0);

    await proxy.start();
    let events: RecordedAuditEvent[] = [];
    await waitUntil(async () => {
      const res = await request(gateway.url).get('/v1/audit?kind=auth.failed').set(auth);
      events = res.status === 200 ? (res.body.events as RecordedAuditEvent[]) : [];
      return events.length > 0;
    }, 'the kept events are written');
    expect(events.map((e) => e.details.reason)).toContain('the API key is not valid');
    const after = await request(gateway.url).get('/metrics').set(auth).expect(200);
    expect(metric(after.text, 'svc_audit_events_dropped_total')).toBe(0);
    expect(metric(after.text, 'svc_audit_events_buffered')).toBe(0);
    // The outage was logged once, not once per retry, and its end too.
    const lines = logs.records().map((r) => String(r.msg));
    expect(lines.filter((m) => m.startsWith('writing audit events failed'))).toHaveLength(1);
    expect(lines.filter((m) => m.startsWith('writing audit events works again'))).toHaveLength(1);
  });
});
