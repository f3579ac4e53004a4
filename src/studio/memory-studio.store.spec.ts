import { describe, expect, it } from '@jest/globals';
import type { RunStatus } from '../runs/record/run-record.js';
import { MemoryStudioStore } from './memory-studio.store.js';
import type { LoopUpdate, SessionUpdate } from './studio.store.js';

const loop = (tenant: string, run: string, status: RunStatus = 'running'): LoopUpdate => ({
  tenant_id: tenant,
  agent: 'default',
  session_id: `s-${run}`,
  run_id: run,
  status,
  started_at: '2026-01-01T00:00:00.000Z',
  ended_at: status === 'running' || status === 'paused' ? null : '2026-01-01T00:00:01.000Z',
  turns: 1,
  tool_calls: 0,
  finish_reason: status === 'running' ? null : 'stop',
  trace_id: null,
  pending_node: null,
  error: null,
});

const session = (tenant: string, id: string, run: string, turns = 1): SessionUpdate => ({
  id,
  tenant_id: tenant,
  agent: 'default',
  prompt: `prompt of ${run}`,
  text: `text of ${run}`,
  finish_reason: 'stop',
  tool_calls: 0,
  turns,
  run_id: run,
  updated_at: '2026-01-01T00:00:01.000Z',
});

describe('MemoryStudioStore', () => {
  it('keeps one loop per run, updated in place, with a stable id and place', async () => {
    const store = new MemoryStudioStore();
    store.putLoop(loop('a', 'r1'));
    store.putLoop(loop('a', 'r2'));
    const before = (await store.snapshot('a')).loops;
    expect(before.map((l) => l.run_id)).toEqual(['r2', 'r1']);
    store.putLoop(loop('a', 'r1', 'completed'));
    const after = (await store.snapshot('a')).loops;
    expect(after.map((l) => [l.run_id, l.status])).toEqual([
      ['r2', 'running'],
      ['r1', 'completed'],
    ]);
    expect(after[1]).toMatchObject({ id: before[1].id, type: 'loop' });
    expect(before[1].status).toBe('running');
  });

  it('keeps one record per session: the latest run, moved to the front, with its run count', async () => {
    const store = new MemoryStudioStore();
    store.putSession(session('a', 's1', 'r1', 1));
    store.putSession(session('a', 's2', 'r2'));
    store.putSession(session('a', 's1', 'r3', 4));
    const { sessions, counts } = await store.snapshot('a');
    expect(sessions.map((s) => [s.id, s.run_id, s.runs, s.turns])).toEqual([
      ['s1', 'r3', 2, 4],
      ['s2', 'r2', 1, 1],
    ]);
    expect(sessions[0]).toMatchObject({ type: 'session', prompt: 'prompt of r3' });
    expect(counts.sessions).toBe(2);
  });

  it('counts every held record by status, whatever the limit cut from the lists', async () => {
    const store = new MemoryStudioStore();
    const statuses: RunStatus[] = ['running', 'running', 'paused', 'completed', 'failed', 'denied'];
    statuses.forEach((status, i) => store.putLoop(loop('a', `r${i}`, status)));
    store.putLoop(loop('b', 'other'));
    const snapshot = await store.snapshot('a', 2);
    expect(snapshot.loops.map((l) => l.run_id)).toEqual(['r5', 'r4']);
    expect(snapshot.counts).toEqual({
      sessions: 0,
      loops: 6,
      running_loops: 2,
      paused_loops: 1,
      completed_loops: 1,
      failed_loops: 1,
      denied_loops: 1,
    });
    expect((await store.snapshot(undefined)).counts).toMatchObject({ loops: 7, running_loops: 3 });
    expect(await store.snapshot('nobody')).toEqual({
      sessions: [],
      loops: [],
      counts: expect.objectContaining({ sessions: 0, loops: 0, running_loops: 0 }),
    });
  });

  it('merges tenants newest first when no tenant is named', async () => {
    const store = new MemoryStudioStore();
    store.putLoop(loop('a', 'a1'));
    store.putLoop(loop('b', 'b1'));
    store.putLoop(loop('a', 'a2'));
    expect((await store.snapshot(undefined)).loops.map((l) => l.run_id)).toEqual([
      'a2',
      'b1',
      'a1',
    ]);
    expect((await store.snapshot(undefined, 2)).loops.map((l) => l.run_id)).toEqual(['a2', 'b1']);
  });

  it('is a ring per tenant that drops the oldest loop that is not running', async () => {
    const store = new MemoryStudioStore({ recordsPerTenant: 3, maxTenants: 10 });
    store.putLoop(loop('a', 'long-running'));
    for (let i = 0; i < 5; i++) store.putLoop(loop('a', `done-${i}`, 'completed'));
    for (let i = 0; i < 5; i++) store.putSession(session('a', `s${i}`, `r${i}`));
    const { loops, sessions, counts } = await store.snapshot('a');
    expect(loops.map((l) => l.run_id)).toEqual(['done-4', 'done-3', 'long-running']);
    expect(counts).toMatchObject({ loops: 3, running_loops: 1, sessions: 3 });
    expect(sessions.map((s) => s.id)).toEqual(['s4', 's3', 's2']);
  });

  it('holds a bounded number of tenants, dropping the least recently written idle one', async () => {
    const store = new MemoryStudioStore({ recordsPerTenant: 10, maxTenants: 2 });
    store.putLoop(loop('busy', 'r1'));
    store.putLoop(loop('idle', 'r2', 'completed'));
    store.putLoop(loop('new', 'r3', 'completed'));
    expect((await store.snapshot('idle')).counts.loops).toBe(0);
    expect((await store.snapshot('busy')).counts.running_loops).toBe(1);
    store.putLoop(loop('new', 'r4', 'completed'));
    store.putLoop(loop('newer', 'r5', 'completed'));
    // Both held tenants were idle or busy: the idle one made room even though busy is older.
    expect((await store.snapshot('new')).counts.loops).toBe(0);
    expect((await store.snapshot('busy')).counts.loops).toBe(1);
    expect((await store.snapshot(undefined)).counts.loops).toBe(2);
  });
});
