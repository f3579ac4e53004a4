import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { A2ATaskIndex } from '../src/a2a/task-index.js';
import { AuditEventStore } from '../src/platform/audit/audit-event.store.js';
import {
  StateConflictError,
  StateStore,
  type EntryWrite,
  type JsonValue,
} from '../src/platform/state/state-store.js';
import type { RunStatus } from '../src/runs/record/run-record.js';
import { RunWebhookStore } from '../src/runs/webhooks/run-webhook.store.js';
import { OutboxStore } from '../src/messaging/outbox.store.js';
import { StudioTables } from '../src/studio/studio-tables.js';
import type { LoopUpdate, SessionUpdate } from '../src/studio/studio.store.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { outboxEntry } from './support/outbox-entries.js';

// Audit events and studio rows asked for with a write they depend on (a run's settled record):
// each is written only if that write holds, the rows asked for beside them either way, and the
// audit trail keeps the order the events were recorded in. On PostgreSQL the plain and the
// conditioned rows share statements; the rows must come out the same.
describe.each(BACKENDS)('rows written only with a write (%s)', (backend) => {
  let fixture: BackendFixture;
  let gateway: RunningGateway;
  let entry = 0;

  /**
   * A write that holds (the entry is as it left it), or not: the entry has moved on since, or
   * it was written again from the start, so that another text stands at the write's version
   * (as when the owner that took a run over writes its record).
   */
  const writeThat = async (
    fate: 'holds' | 'moved on' | 'written again',
    value: JsonValue = { n: 1 },
  ): Promise<EntryWrite> => {
    const state = gateway.app.get(StateStore);
    const key = { tenantId: 'acme', sessionId: `entry-${++entry}`, key: 'record' };
    const { entry: written, write } = state.putAt(key, value, 0);
    await written;
    if (fate === 'moved on') await state.put(key, { n: 2 });
    if (fate === 'written again') {
      await state.delete(key);
      await state.putAt(key, { n: 2 }, 0).entry;
    }
    return write;
  };

  const event = (kind: 'run.started' | 'run.completed', runId: string, onlyIf?: EntryWrite) => ({
    kind,
    tenantId: 'acme',
    actor: 'root',
    at: Date.now(),
    details: { run_id: runId },
    ...(onlyIf ? { onlyIf } : {}),
  });

  const auditOf = async (runId: string) =>
    (await gateway.app.get(AuditEventStore).list({ tenantId: 'acme', runId, limit: 10 }))
      .reverse()
      .map((recorded) => recorded.kind);

  beforeAll(async () => {
    fixture = await createBackend(backend);
    gateway = await startGateway({
      ...fixture.env,
      SVC_API_KEY: 'conditioned-rows-root-key',
      SVC_AUDIT_STORE: 'state',
      SVC_STUDIO_STORE: 'state',
    });
  });

  afterAll(async () => {
    await gateway?.close();
    await fixture?.cleanup();
  });

  it('writes plain audit events and one whose write holds, in the order they were recorded', async () => {
    const holds = await writeThat('holds');
    await gateway.app
      .get(AuditEventStore)
      .insert([
        event('run.started', 'r1'),
        event('run.started', 'r2'),
        event('run.completed', 'r1', holds),
        event('run.completed', 'r2', holds),
      ]);
    expect(await auditOf('r1')).toEqual(['run.started', 'run.completed']);
    expect(await auditOf('r2')).toEqual(['run.started', 'run.completed']);
  });

  it('writes the plain audit events and not the one whose write does not hold', async () => {
    const [lost, holds] = [await writeThat('moved on'), await writeThat('holds')];
    await gateway.app
      .get(AuditEventStore)
      .insert([
        event('run.started', 'r3'),
        event('run.completed', 'r3', lost),
        event('run.started', 'r4'),
        event('run.completed', 'r4', holds),
      ]);
    expect(await auditOf('r3')).toEqual(['run.started']);
    expect(await auditOf('r4')).toEqual(['run.started', 'run.completed']);
  });

  const loop = (runId: string, status: LoopUpdate['status']): LoopUpdate => ({
    tenant_id: 'acme',
    agent: 'default',
    session_id: `sess-${runId}`,
    run_id: runId,
    status,
    started_at: new Date().toISOString(),
    ended_at: null,
    turns: 1,
    tool_calls: 0,
    finish_reason: null,
    trace_id: null,
    pending_node: null,
    error: null,
  });

  const session = (runId: string): SessionUpdate => ({
    id: `sess-${runId}`,
    tenant_id: 'acme',
    agent: 'default',
    prompt: 'hello',
    text: 'hello',
    finish_reason: 'stop',
    tool_calls: 0,
    turns: 1,
    run_id: runId,
    updated_at: new Date().toISOString(),
  });

  it('writes a settled loop and session with a write that holds, and neither with one that does not', async () => {
    const [holds, lost] = [await writeThat('holds'), await writeThat('moved on')];
    await gateway.app.get(StudioTables).write([
      { kind: 'loop', update: loop('s1', 'running'), updatedMs: 1 },
      { kind: 'loop', update: loop('s1', 'completed'), updatedMs: 2, onlyIf: holds },
      { kind: 'session', update: session('s1'), runs: 1, onlyIf: holds },
      { kind: 'loop', update: loop('s2', 'running'), updatedMs: 1 },
      { kind: 'loop', update: loop('s2', 'completed'), updatedMs: 2, onlyIf: lost },
      { kind: 'session', update: session('s2'), runs: 1, onlyIf: lost },
    ]);
    const { loops, sessions } = await gateway.app.get(StudioTables).snapshot('acme', 10);
    const statusOf = (runId: string) => loops.find((found) => found.run_id === runId)?.status;
    expect(statusOf('s1')).toBe('completed');
    expect(statusOf('s2')).toBe('running');
    expect(sessions.map((found) => found.id)).toEqual(['sess-s1']);
  });

  it("moves an A2A task's row, marks a run's webhook due and stores a chat reply with a write that holds, and none with one that does not", async () => {
    const [holds, lost] = [await writeThat('holds'), await writeThat('moved on')];
    const index = gateway.app.get(A2ATaskIndex);
    const task = (runId: string, status: RunStatus, endedAt: string | null) => ({
      tenant_id: 'acme',
      run_id: runId,
      agent: 'default',
      session_id: `sess-${runId}`,
      status,
      started_at: '2026-11-29T10:00:00.000Z',
      ended_at: endedAt,
    });
    const ended = '2026-11-29T10:00:01.000Z';
    for (const [runId, write] of [
      ['t1', holds],
      ['t2', lost],
    ] as const) {
      await index.upsert(task(runId, 'running', null));
      await index.upsert(task(runId, 'completed', ended), write);
    }
    // A settled task's row whose running row was not written yet is written by itself.
    await index.upsert(task('t3', 'completed', ended), holds);
    await index.upsert(task('t3', 'running', null)); // older: changes nothing
    const rows = await index.page({ tenantId: 'acme', agent: 'default' }, null, 10);
    const statusOf = (runId: string) => rows.find((row) => row.taskId === runId)?.status;
    expect([statusOf('t1'), statusOf('t2'), statusOf('t3')]).toEqual([
      'completed',
      'running',
      'completed',
    ]);

    const webhooks = gateway.app.get(RunWebhookStore);
    const target = { url: 'http://127.0.0.1:9/hook', format: 'run' as const, token: null };
    for (const runId of ['w1', 'w2']) await webhooks.register('acme', runId, target, 60_000);
    expect(await webhooks.markDue('acme', 'w1', holds)).toBe(true);
    expect(await webhooks.markDue('acme', 'w2', lost)).toBe(false);
    expect(await webhooks.markDue('acme', 'none', holds)).toBe(false);
    expect((await webhooks.get('acme', 'w1'))?.status).toBe('pending');
    expect((await webhooks.get('acme', 'w2'))?.status).toBe('waiting');

    const outbox = gateway.app.get(OutboxStore);
    for (const id of ['o1', 'o2']) expect(await outbox.accept(outboxEntry(id), 60_000)).toBe(true);
    const replied = await outbox.setReply('acme', 'o1', 'hi', { onlyIf: holds, claimMs: 60_000 });
    expect(replied).toMatchObject({ status: 'pending', reply: 'hi' });
    // Claimed with it: due again only after the claim (both times are the database's).
    expect(replied!.nextAttemptAt - replied!.updatedAt).toBeGreaterThanOrEqual(59_990);
    expect(await outbox.setReply('acme', 'o2', 'hi', { onlyIf: lost })).toBeNull();
    expect((await outbox.get('acme', 'o2'))?.status).toBe('running');
  });

  it('tells a write from another text at its version, in text beyond ASCII too', async () => {
    const text = { prompt: 'héllo wörld 👋 — 日本語', quote: '"\\' };
    const [holds, lost] = [await writeThat('holds', text), await writeThat('written again')];
    await gateway.app
      .get(AuditEventStore)
      .insert([event('run.completed', 'r5', holds), event('run.completed', 'r6', lost)]);
    expect(await auditOf('r5')).toEqual(['run.completed']);
    expect(await auditOf('r6')).toEqual([]);
    await gateway.app.get(StudioTables).write([
      { kind: 'loop', update: loop('s5', 'completed'), updatedMs: 1, onlyIf: holds },
      { kind: 'loop', update: loop('s6', 'completed'), updatedMs: 1, onlyIf: lost },
    ]);
    const { loops } = await gateway.app.get(StudioTables).snapshot('acme', 10);
    expect(loops.map((found) => found.run_id).filter((id) => ['s5', 's6'].includes(id))).toEqual([
      's5',
    ]);
    // An entry written only with another entry's write (a run's record with its session's).
    const state = gateway.app.get(StateStore);
    const key = (name: string) => ({ tenantId: 'acme', sessionId: 'follower', key: name });
    await state.putAt(key('a'), { n: 0 }, 0).entry;
    await state.putAt(key('b'), { n: 0 }, 0).entry;
    await expect(state.putAt(key('a'), { n: 1 }, 1, holds).entry).resolves.toMatchObject({
      version: 2,
    });
    await expect(state.putAt(key('b'), { n: 1 }, 1, lost).entry).rejects.toBeInstanceOf(
      StateConflictError,
    );
    expect(await state.get(key('b'))).toMatchObject({ value: { n: 0 }, version: 1 });
  });
});
