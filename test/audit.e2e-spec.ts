import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RecordedAuditEvent } from '../src/platform/audit/audit-event.js';
import { AuditRetention } from '../src/platform/audit/audit-retention.js';
import { AuditSink } from '../src/platform/audit/audit-sink.js';
import type { Backend } from './support/backends.js';
import { writeKeysFile } from './support/keys-file.js';
import { gatewayForSuite } from './support/suite.js';

const ROOT = 'audit-root-key';
const KEYS = { acme: 'audit-acme-auditor-key', any: 'audit-any-auditor-key' };
const as = (key: string) => ({ Authorization: `Bearer ${key}` });
const DAY_MS = 24 * 3_600_000;

interface AuditPage {
  events: RecordedAuditEvent[];
  next_cursor: string | null;
}

/** Every store on every backend it runs on: memory is the sqlite default, state works on both. */
const STORES: Array<[Backend, 'memory' | 'state']> = [
  ['sqlite', 'memory'],
  ['sqlite', 'state'],
  ['postgres', 'state'],
];

function expectProblem(res: request.Response, status: number, path?: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  if (path !== undefined) expect(res.body.errors?.[0]?.path).toBe(path);
}

describe.each(STORES)('GET /v1/audit and its export (%s, %s store)', (backend, store) => {
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: ROOT,
    SVC_AUDIT_STORE: store,
    SVC_KEYS_FILE: writeKeysFile({
      keys: [
        { id: 'acme-auditor', key: KEYS.acme, tenant_id: 'acme', roles: ['auditor'] },
        { id: 'any-auditor', key: KEYS.any, roles: ['auditor'] },
      ],
      roles: { auditor: ['audit:read'] },
    }),
  }));
  const get = (query: string, key = ROOT) =>
    request(gateway.url).get(`/v1/audit${query}`).set(as(key));
  const page = async (query: string, key = ROOT): Promise<AuditPage> =>
    (await get(query, key).expect(200)).body as AuditPage;
  const run = (tenant: string, runId: string, prompt = 'hello') =>
    request(gateway.url)
      .post('/v1/agent/run')
      .set(as(ROOT))
      .send({ tenant_id: tenant, run_id: runId, prompt })
      .expect(200);
  /** `count` events of `tenant` straight into the gateway's sink, as any surface records them. */
  const seed = (tenant: string, count: number, from = 0) => {
    const sink = gateway.app.get(AuditSink);
    for (let n = from; n < from + count; n++) {
      sink.record({ kind: 'tool.invoked', tenantId: tenant, details: { tool: 'echo', n } });
    }
  };

  it('filters by run, exact kind, kind prefix, actor and time, newest first', async () => {
    await run('acme', `${store}-r1`, '/tool calculator {"expression":"1+1"}');
    await run('acme', `${store}-r2`);
    await run('beta', `${store}-r3`);

    const r1 = await page(`?tenant_id=acme&run_id=${store}-r1`);
    expect(r1.events.map((e) => e.kind)).toEqual(['run.completed', 'run.started']);
    expect(r1.events[0]).toMatchObject({
      tenantId: 'acme',
      actor: 'root',
      details: expect.objectContaining({ run_id: `${store}-r1`, tool_calls: 1 }),
    });
    expect(r1.next_cursor).toBeNull();
    expect(r1.events[0].id).toBeGreaterThan(r1.events[1].id);

    const runs = await page('?tenant_id=acme&kind=run.*');
    expect(new Set(runs.events.map((e) => e.kind))).toEqual(
      new Set(['run.started', 'run.completed']),
    );
    expect(runs.events.map((e) => e.details.run_id)).toEqual([
      `${store}-r2`,
      `${store}-r2`,
      `${store}-r1`,
      `${store}-r1`,
    ]);
    const tools = await page('?tenant_id=acme&kind=tool.invoked');
    expect(tools.events).toEqual([
      expect.objectContaining({
        kind: 'tool.invoked',
        details: expect.objectContaining({ tool: 'calculator' }),
      }),
    ]);
    expect((await page('?kind=run.completed&actor=root')).events).toHaveLength(3);
    expect((await page('?actor=nobody')).events).toEqual([]);

    // since is inclusive and until exclusive, on the events' own times.
    const [newest, , third] = runs.events;
    const since = new Date(third.at).toISOString();
    const windowed = await page(`?tenant_id=acme&kind=run.*&since=${since}`);
    expect(windowed.events.every((e) => e.at >= third.at)).toBe(true);
    expect(windowed.events.map((e) => e.id)).toContain(third.id);
    const before = await page(
      `?tenant_id=acme&kind=run.*&until=${new Date(newest.at).toISOString()}`,
    );
    expect(before.events.every((e) => e.at < newest.at)).toBe(true);
  });

  it("keeps a tenant-bound key inside its tenant's events", async () => {
    await request(gateway.url).get('/v1/studio').set(as('a-wrong-key')).expect(401);
    const own = await page('', KEYS.acme);
    expect(own.events.length).toBeGreaterThan(0);
    expect(new Set(own.events.map((e) => e.tenantId))).toEqual(new Set(['acme']));
    expectProblem(await get('?tenant_id=beta', KEYS.acme), 403);
    expectProblem(await get('/export?tenant_id=beta', KEYS.acme), 403);

    const everyone = await page('?limit=1000', KEYS.any);
    const tenants = new Set(everyone.events.map((e) => e.tenantId));
    expect(tenants).toEqual(new Set(['acme', 'beta', undefined]));
    expect(everyone.events.some((e) => e.kind === 'auth.failed' && e.tenantId === undefined)).toBe(
      true,
    );
    expect(
      (await page('?tenant_id=beta', KEYS.any)).events.every((e) => e.tenantId === 'beta'),
    ).toBe(true);
  });

  it('answers bad query values with 400 problems naming the field', async () => {
    const cases: Array<[string, string]> = [
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=many', 'limit'],
      ['?kind=RUN', 'kind'],
      ['?kind=run.*.*', 'kind'],
      ['?kind=*', 'kind'],
      ['?cursor=not-a-cursor', 'cursor'],
      [`?cursor=${Buffer.from('b2.12').toString('base64url')}`, 'cursor'],
      ['?since=yesterday', 'since'],
      ['?until=2026-13-01T00:00:00Z', 'until'],
      ['?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z', 'until'],
      ['?run_id=a%00b', 'run_id'],
      ['?tenant_id=', 'tenant_id'],
      ['?actor=' + 'x'.repeat(300), 'actor'],
      ['?unknown=1', 'unknown'],
    ];
    for (const [query, path] of cases) {
      expectProblem(await get(query), 400, path);
    }
    expectProblem(await get('/export?limit=5'), 400, 'limit');
    expectProblem(await get('/export?kind=RUN'), 400, 'kind');
    await request(gateway.url).get('/v1/audit').expect(401);
  });

  it('pages with next_cursor without duplicates or omissions while events keep coming', async () => {
    seed('pager', 130);
    await gateway.app.get(AuditSink).flush();
    const before = await page('?tenant_id=pager&limit=1000');
    expect(before.events).toHaveLength(130);

    let adding = true;
    let added = 0;
    const adder = (async () => {
      while (adding) {
        seed('pager', 3, 1000 + added);
        added += 3;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const seen: RecordedAuditEvent[] = [];
    let cursor: string | null = null;
    let pages = 0;
    try {
      do {
        const query: string = `?tenant_id=pager&limit=25${cursor ? `&cursor=${cursor}` : ''}`;
        const next = await page(query);
        if (seen.length > 0 && next.events.length > 0) {
          // Each page continues strictly below where the last ended.
          expect(next.events[0].id).toBeLessThan(seen.at(-1)!.id);
        }
        seen.push(...next.events);
        cursor = next.next_cursor;
        pages++;
      } while (cursor !== null && pages < 50);
    } finally {
      adding = false;
      await adder;
    }
    expect(added).toBeGreaterThan(0);
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const seenIds = new Set(ids);
    for (const event of before.events) expect(seenIds.has(event.id)).toBe(true);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it('exports every selected event as JSON lines, read page by page', async () => {
    seed('exporter', 1234);
    const res = await fetch(`${gateway.url}/v1/audit/export?tenant_id=exporter&kind=tool.*`, {
      headers: as(KEYS.any),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const text = await res.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as RecordedAuditEvent);
    expect(lines).toHaveLength(1234);
    expect(lines.map((e) => e.details.n)).toEqual(Array.from({ length: 1234 }, (_, i) => 1233 - i));
    expect(new Set(lines.map((e) => e.tenantId))).toEqual(new Set(['exporter']));
    // The same events as the paged list.
    const first = await page('?tenant_id=exporter&limit=1000');
    expect(lines.slice(0, 1000)).toEqual(first.events);

    const none = await fetch(`${gateway.url}/v1/audit/export?tenant_id=nobody`, {
      headers: as(ROOT),
    });
    expect(none.status).toBe(200);
    expect(await none.text()).toBe('');
    const bound = await fetch(`${gateway.url}/v1/audit/export?kind=run.*`, {
      headers: as(KEYS.acme),
    });
    const own = (await bound.text()).trimEnd().split('\n');
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((line) => (JSON.parse(line) as RecordedAuditEvent).tenantId === 'acme')).toBe(
      true,
    );
  });

  if (store === 'state') {
    it('deletes events older than SVC_AUDIT_RETENTION_DAYS (90) in its sweep', async () => {
      const sink = gateway.app.get(AuditSink);
      const now = Date.now();
      sink.record({ kind: 'run.started', tenantId: 'aged', at: now - 91 * DAY_MS, details: {} });
      sink.record({ kind: 'run.started', tenantId: 'aged', at: now - 89 * DAY_MS, details: {} });
      sink.record({ kind: 'run.started', tenantId: 'aged', details: {} });
      await sink.flush();
      expect((await page('?tenant_id=aged')).events).toHaveLength(3);
      const retention = gateway.app.get(AuditRetention);
      expect(await retention.sweep(now)).toBe(1);
      expect(await retention.sweep(now)).toBe(0);
      const kept = await page('?tenant_id=aged');
      // The unstamped event is recorded a moment after `now`: its age rounds to 0 (not -0).
      const ages = kept.events.map((e) => Math.round((now - e.at) / DAY_MS) || 0);
      expect(ages).toEqual([0, 89]);
    });
  }
});
