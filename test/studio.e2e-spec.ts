import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RunRecord } from '../src/runs/record/run-record.js';
import type { StudioLoop, StudioSession, StudioSnapshot } from '../src/studio/studio-records.js';
import { StateDatabase } from '../src/platform/state/state-database.service.js';
import { StudioRetention } from '../src/studio/studio-retention.js';
import { StudioStore } from '../src/studio/studio.store.js';
import { BACKENDS, type Backend } from './support/backends.js';
import { type GatedEndpoint, startGatedEndpoint } from './support/gated-endpoint.js';
import { writeKeysFile } from './support/keys-file.js';
import { refundGraph } from './support/graphs.js';
import { gatewayForSuite } from './support/suite.js';
import { STUDIO_FILES } from '../src/studio/studio-page.assets.js';

const ROOT = 'studio-root-key';
const KEYS = {
  aViewer: 'studio-a-viewer-key',
  aRunner: 'studio-a-runner-key',
  anyViewer: 'studio-any-viewer-key',
};
const as = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Tool `wait` of tenant a's toolset `ops` calls the gated endpoint (it answers when told). */
const registerWaitTool = (url: string) =>
  request(url)
    .put('/v1/toolsets/ops/tools/wait')
    .set(as(ROOT))
    .send({
      tenant_id: 'a',
      description: 'waits for the test',
      parameters: { type: 'object', properties: {} },
      endpoint: { url: gate.url },
    })
    .expect(200);

/** The spec's session fields (section 2) and the contract's loop fields (section 8). */
const SESSION_FIELDS = {
  id: 'string',
  type: 'string',
  tenant_id: 'string',
  agent: 'string',
  prompt: 'string',
  text: 'string',
  finish_reason: 'string',
  tool_calls: 'number',
  turns: 'number',
};
const LOOP_FIELDS = [
  'id',
  'type',
  'tenant_id',
  'agent',
  'session_id',
  'run_id',
  'status',
  'started_at',
  'ended_at',
  'turns',
  'tool_calls',
  'finish_reason',
  'trace_id',
];

let gate: GatedEndpoint;
beforeAll(async () => {
  gate = await startGatedEndpoint();
});
afterAll(() => gate.close());

/** The memory store (the sqlite default) and the state store on both backends. */
const STORES: Array<[Backend, 'memory' | 'state']> = [
  ['sqlite', 'memory'],
  ['sqlite', 'state'],
  ['postgres', 'state'],
];

describe.each(STORES)('studio snapshot at GET /v1/studio (%s, %s store)', (backend, store) => {
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: ROOT,
    SVC_STUDIO_STORE: store,
    SVC_KEYS_FILE: writeKeysFile({
      keys: [
        { id: 'a-view', key: KEYS.aViewer, tenant_id: 'a', roles: ['viewer'] },
        { id: 'a-run', key: KEYS.aRunner, tenant_id: 'a', roles: ['runner'] },
        { id: 'any-view', key: KEYS.anyViewer, roles: ['viewer'] },
      ],
    }),
  }));

  const run = async (body: Record<string, unknown>, status = 200): Promise<RunRecord> =>
    (await request(gateway.url).post('/v1/agent/run').set(as(ROOT)).send(body).expect(status))
      .body as RunRecord;
  const studio = async (query = '', key = ROOT): Promise<StudioSnapshot> =>
    (await request(gateway.url).get(`/v1/studio${query}`).set(as(key)).expect(200))
      .body as StudioSnapshot;
  const loopOf = (snapshot: StudioSnapshot, runId: string): StudioLoop | undefined =>
    snapshot.loops.find((loop) => loop.run_id === runId);

  const runs: RunRecord[] = [];
  beforeAll(async () => {
    runs.push(await run({ tenant_id: 'a', prompt: 'hello from a' }));
    runs.push(
      await run({
        tenant_id: 'a',
        messages: [{ role: 'system', content: 'be brief' }],
        prompt: '/tool calculator {"expression":"6*7"}',
      }),
    );
    runs.push(await run({ tenant_id: 'b', prompt: 'hello from b' }));
  });

  it("holds only tenant a's records for tenant_id=a, with every spec field, newest first", async () => {
    const snapshot = await studio('?tenant_id=a');
    const [first, second] = runs;
    expect(snapshot.sessions).toHaveLength(2);
    expect(snapshot.loops).toHaveLength(2);
    for (const record of [...snapshot.sessions, ...snapshot.loops]) {
      expect(record.tenant_id).toBe('a');
    }
    for (const session of snapshot.sessions) {
      for (const [field, type] of Object.entries(SESSION_FIELDS)) {
        expect({ field, type: typeof session[field as keyof StudioSession] }).toEqual({
          field,
          type,
        });
      }
      expect(session.type).toBe('session');
    }
    for (const loop of snapshot.loops) {
      expect(Object.keys(loop)).toEqual(expect.arrayContaining(LOOP_FIELDS));
      expect(loop.type).toBe('loop');
      expect(loop.id).not.toBe(loop.run_id);
    }
    // Newest first: the calculator run, then the greeting.
    expect(snapshot.sessions.map((s) => s.id)).toEqual([second.session_id, first.session_id]);
    expect(snapshot.sessions[0]).toMatchObject({
      agent: 'default',
      prompt: '/tool calculator {"expression":"6*7"}',
      text: second.text,
      finish_reason: 'stop',
      tool_calls: 1,
      turns: 2,
    });
    expect(snapshot.sessions[1]).toMatchObject({
      prompt: 'hello from a',
      text: 'hello from a',
      tool_calls: 0,
      turns: 1,
    });
    expect(snapshot.loops.map((l) => l.run_id)).toEqual([second.run_id, first.run_id]);
    expect(snapshot.loops[0]).toMatchObject({
      session_id: second.session_id,
      status: 'completed',
      started_at: second.started_at,
      ended_at: second.ended_at,
      turns: second.turns,
      tool_calls: second.tool_calls,
      finish_reason: second.finish_reason,
      trace_id: second.trace_id,
    });
    expect(snapshot.counts).toEqual({
      sessions: 2,
      loops: 2,
      running_loops: 0,
      paused_loops: 0,
      completed_loops: 2,
      failed_loops: 0,
      denied_loops: 0,
    });
    // The run's answer is what it always was: the studio only watched.
    const stored = await request(gateway.url)
      .get(`/v1/runs/${second.run_id}?tenant_id=a`)
      .set(as(ROOT))
      .expect(200);
    expect(stored.body).toEqual(second);
  });

  it('keeps a tenant-bound key inside its tenant and needs studio:read', async () => {
    const own = await studio('', KEYS.aViewer);
    expect(own.counts).toMatchObject({ sessions: 2, loops: 2 });
    expect(new Set(own.loops.map((l) => l.tenant_id))).toEqual(new Set(['a']));
    await request(gateway.url).get('/v1/studio?tenant_id=b').set(as(KEYS.aViewer)).expect(403);
    await request(gateway.url).get('/v1/studio').set(as(KEYS.aRunner)).expect(403);
    const anonymous = await request(gateway.url).get('/v1/studio').expect(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="svc"');

    const everyone = await studio('', KEYS.anyViewer);
    expect(new Set(everyone.sessions.map((s) => s.tenant_id))).toEqual(new Set(['a', 'b']));
    expect(everyone.counts).toMatchObject({ sessions: 3, loops: 3 });
    const onlyB = await studio('?tenant_id=b', KEYS.anyViewer);
    expect(onlyB.sessions.map((s) => s.prompt)).toEqual(['hello from b']);
    expect((await studio('?tenant_id=nobody')).counts).toMatchObject({ sessions: 0, loops: 0 });
  });

  it('bounds both lists by limit while the counts keep the totals', async () => {
    const limited = await studio('?tenant_id=a&limit=1');
    expect(limited.sessions).toHaveLength(1);
    expect(limited.loops).toHaveLength(1);
    expect(limited.counts).toMatchObject({ sessions: 2, loops: 2 });
    for (const bad of ['0', '501', 'many']) {
      const res = await request(gateway.url)
        .get(`/v1/studio?limit=${bad}`)
        .set(as(ROOT))
        .expect(400);
      expect(res.body.errors[0].path).toBe('limit');
    }
  });

  it('shows a loop as running while a slow tool runs, and completed after', async () => {
    await registerWaitTool(gateway.url);
    const runId = `${backend}-${store}-slow`;
    const pending = request(gateway.url)
      .post('/v1/agent/run')
      .set(as(ROOT))
      .send({ tenant_id: 'a', toolset: 'ops', prompt: '/tool wait {}', run_id: runId })
      .then((res) => res);
    await gate.arrived();

    const during = await studio('?tenant_id=a');
    const running = loopOf(during, runId);
    expect(running).toMatchObject({ status: 'running', ended_at: null, finish_reason: null });
    expect(during.counts.running_loops).toBe(1);
    expect(during.sessions.some((s) => s.id === running?.session_id)).toBe(false);

    gate.release();
    const finished = await pending;
    expect(finished.status).toBe(200);
    const after = await studio('?tenant_id=a');
    expect(loopOf(after, runId)).toMatchObject({
      id: running?.id,
      status: 'completed',
      tool_calls: 1,
      turns: 2,
      ended_at: finished.body.ended_at,
    });
    expect(after.counts.running_loops).toBe(0);
    expect(after.sessions[0]).toMatchObject({
      id: finished.body.session_id,
      prompt: '/tool wait {}',
      tool_calls: 1,
    });
  });

  it('records a graph run as a paused loop until approved, then completed with its session', async () => {
    await request(gateway.url)
      .put('/v1/agents/refund')
      .set(as(ROOT))
      .send(refundGraph('a'))
      .expect(200);
    const runId = `${backend}-${store}-graph`;
    const paused = await run(
      { tenant_id: 'a', agent: 'refund', prompt: 'order 9', run_id: runId },
      202,
    );
    const waiting = await studio('?tenant_id=a');
    expect(loopOf(waiting, runId)).toMatchObject({
      agent: 'refund',
      status: 'paused',
      pending_node: 'pay',
      session_id: paused.session_id,
    });
    expect(waiting.counts.paused_loops).toBe(1);
    expect(waiting.sessions.some((s) => s.id === paused.session_id)).toBe(false);

    const approved = await request(gateway.url)
      .post(`/v1/runs/${runId}/approve`)
      .set(as(ROOT))
      .send({ tenant_id: 'a', node_id: 'pay' })
      .expect(200);
    const done = await studio('?tenant_id=a');
    expect(loopOf(done, runId)).toMatchObject({
      id: loopOf(waiting, runId)?.id,
      status: 'completed',
      pending_node: null,
      tool_calls: approved.body.tool_calls,
    });
    expect(done.counts.paused_loops).toBe(0);
    expect(done.sessions[0]).toMatchObject({
      id: paused.session_id,
      agent: 'refund',
      prompt: 'order 9',
      text: approved.body.text,
    });
  });
});

describe.each(BACKENDS)('the studio in the state backend stays bounded (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, { SVC_API_KEY: ROOT, SVC_STUDIO_STORE: 'state' });
  const snapshot = async (tenant: string): Promise<StudioSnapshot> =>
    (await request(gateway.url).get(`/v1/studio?tenant_id=${tenant}`).set(as(ROOT)).expect(200))
      .body as StudioSnapshot;
  const loop = (run: string, status: RunRecord['status'], startedAt: number) => ({
    tenant_id: 'crowded',
    agent: 'default',
    session_id: `s-${run}`,
    run_id: run,
    status,
    started_at: new Date(startedAt).toISOString(),
    ended_at: status === 'running' ? null : new Date(startedAt + 1).toISOString(),
    turns: 1,
    tool_calls: 0,
    finish_reason: status === 'running' ? null : 'stop',
    trace_id: null,
    pending_node: null,
    error: null,
  });

  it("keeps a tenant's newest 500 settled loops and sessions, and nothing past its days", async () => {
    const store = gateway.app.get(StudioStore);
    const retention = gateway.app.get(StudioRetention);
    // After the sweep the gateway made at start, which would otherwise race the one below.
    await retention.sweep();
    const start = Date.now() - 3_600_000;
    store.putLoop(loop('oldest-but-running', 'running', start - 1000));
    for (let i = 0; i < 520; i++) {
      store.putLoop(loop(`done-${i}`, 'completed', start + i));
      store.putSession({
        id: `s-${i}`,
        tenant_id: 'crowded',
        agent: 'default',
        prompt: 'p',
        text: 't',
        finish_reason: 'stop',
        tool_calls: 0,
        turns: 1,
        run_id: `done-${i}`,
        updated_at: new Date(start + i).toISOString(),
      });
    }
    await store.flush();
    expect((await snapshot('crowded')).counts).toMatchObject({ loops: 521, sessions: 520 });
    expect(await retention.sweep()).toBe(40);
    const kept = await snapshot('crowded');
    expect(kept.counts).toMatchObject({ loops: 501, running_loops: 1, sessions: 500 });
    expect(kept.loops[0].run_id).toBe('done-519');
    expect(kept.loops.some((l) => l.run_id === 'done-19')).toBe(false);
    expect(kept.sessions.at(-1)?.id).toBe('s-470');

    // 31 days on (SVC_STUDIO_RETENTION_DAYS, 30), nothing of it is left.
    await retention.sweep(Date.now() + 31 * 24 * 3_600_000);
    expect((await snapshot('crowded')).counts).toMatchObject({ loops: 0, sessions: 0 });
  });
});

describe('the studio page files', () => {
  const gateway = gatewayForSuite('sqlite', { SVC_API_KEY: ROOT });

  it('are served without a key, with a strict Content-Security-Policy', async () => {
    const page = await request(gateway.url).get('/studio').expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.text).toContain('<script type="module" src="/studio/studio.js"></script>');
    expect(page.text).not.toMatch(/<script>|\son[a-z]+=/);
    // Every module is served, and none puts data into the page as markup.
    const modules = Object.keys(STUDIO_FILES).filter((path) => path.endsWith('.js'));
    expect(modules).toEqual(expect.arrayContaining(['/studio/studio.js', '/studio/run-view.js']));
    for (const path of modules) {
      const script = await request(gateway.url).get(path).expect(200);
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(script.headers['content-security-policy']).toContain("script-src 'self'");
      expect({
        path,
        markup: /innerHTML|outerHTML|insertAdjacentHTML|document\.write/.test(script.text),
      }).toEqual({ path, markup: false });
      // Every module the page imports is one it can load.
      for (const [, imported] of script.text.matchAll(/from '\.\/([\w-]+\.js)'/g)) {
        expect(modules).toContain(`/studio/${imported}`);
      }
    }
    await request(gateway.url).get('/studio/studio.js/').expect(200);
    await request(gateway.url).get('/studio/').expect(200);
    await request(gateway.url)
      .get('/studio/studio.css')
      .expect('content-type', /text\/css/);
    await request(gateway.url).get('/studio/../package.json').expect(404);
    await request(gateway.url).get('/studio/other.js').expect(404);
  });
});

describe.each(['memory', 'state'])('a graph run this replica loses (%s store)', (store) => {
  // Renewed every third of a second, so a stolen lease is noticed at once.
  const gateway = gatewayForSuite('sqlite', {
    SVC_API_KEY: ROOT,
    SVC_LEASE_TTL_MS: '1000',
    SVC_STUDIO_STORE: store,
  });

  it(
    store === 'memory'
      ? 'ends its loop here as failed instead of leaving it running'
      : 'leaves the shared loop to the run’s next owner instead of failing it',
    async () => {
      await registerWaitTool(gateway.url);
      await request(gateway.url)
        .put('/v1/agents/slow')
        .set(as(ROOT))
        .send({
          tenant_id: 'a',
          topology: 'pipeline',
          steps: [{ id: 'hold', kind: 'tool', tool: 'wait', toolset: 'ops', arguments: {} }],
        })
        .expect(200);
      const pending = request(gateway.url)
        .post('/v1/agent/run')
        .set(as(ROOT))
        .send({ tenant_id: 'a', agent: 'slow', prompt: 'go', run_id: 'stolen' })
        .then((res) => res);
      await gate.arrived();
      // Another process takes the run over.
      await gateway.app
        .get(StateDatabase)
        .query(`UPDATE run_leases SET owner = 'thief' WHERE run_id = 'run:stolen'`);
      const answer = await pending;
      gate.release();
      expect(answer.status).toBe(409);
      const snapshot = (
        await request(gateway.url).get('/v1/studio?tenant_id=a').set(as(ROOT)).expect(200)
      ).body as StudioSnapshot;
      if (store === 'memory') {
        // This replica's own part of the run ended; running_loops must not count it forever.
        expect(snapshot.loops).toMatchObject([
          {
            run_id: 'stolen',
            status: 'failed',
            finish_reason: 'error',
            error: expect.stringContaining('the run continues from its checkpoint'),
          },
        ]);
        expect(snapshot.counts.running_loops).toBe(0);
      } else {
        // Shared: the run is not over, and the replica that holds it now writes its loop next.
        expect(snapshot.loops).toMatchObject([
          { run_id: 'stolen', status: 'running', error: null },
        ]);
        expect(snapshot.counts.running_loops).toBe(1);
      }
    },
  );
});
