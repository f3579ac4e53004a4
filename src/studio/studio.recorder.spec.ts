import { describe, expect, it } from '@jest/globals';
import { RunEvents } from '../runs/lifecycle/run-events.js';
import type { RunRecord } from '../runs/record/run-record.js';
import { STUDIO_MAX_TEXT, StudioRecorder } from './studio.recorder.js';
import { MemoryStudioStore } from './memory-studio.store.js';

function setUp() {
  const events = new RunEvents();
  const store = new MemoryStudioStore();
  const recorder = new StudioRecorder(events, store);
  recorder.onModuleInit();
  return { events, store, recorder };
}

const run = (fields: Partial<RunRecord> = {}): RunRecord => ({
  run_id: 'r1',
  session_id: 's1',
  tenant_id: 'acme',
  agent: 'default',
  status: 'running',
  text: '',
  finish_reason: null,
  turns: 0,
  tool_calls: 0,
  messages: [
    { role: 'user', content: 'first question' },
    { role: 'assistant', content: 'an answer' },
    { role: 'user', content: 'the prompt' },
  ],
  trace_id: null,
  started_at: '2026-01-01T00:00:00.000Z',
  ended_at: null,
  ...fields,
});

/**
 * A run settles as RunLifecycle settles it: observers are told as its settled record is asked
 * for, then, once it is written, that it settled.
 */
async function settle(events: RunEvents, record: RunRecord, written = true): Promise<void> {
  const outcome = written ? Promise.resolve() : Promise.reject(new Error('another owner'));
  const write = { key: { tenantId: 'acme', sessionId: 'run:r1', key: 'record' }, version: 2 };
  events.settling(record, {}, { write: { ...write, json: '{}' }, outcome });
  if (await outcome.then(() => written).catch(() => false)) events.settled(record);
}

describe('StudioRecorder', () => {
  it('follows a run: running loop, progress, then completed loop and its session', async () => {
    const { events, store } = setUp();
    const record = run();
    events.started(record);
    expect(await store.snapshot('acme')).toMatchObject({
      sessions: [],
      loops: [{ run_id: 'r1', status: 'running', turns: 0 }],
      counts: { running_loops: 1, sessions: 0, loops: 1 },
    });
    events.progressed({ ...record, turns: 1, tool_calls: 2 });
    expect((await store.snapshot('acme')).loops[0]).toMatchObject({ turns: 1, tool_calls: 2 });
    await settle(events, {
      ...record,
      status: 'completed',
      text: 'done',
      finish_reason: 'stop',
      turns: 2,
      tool_calls: 2,
      trace_id: 'trace-1',
      messages: [...record.messages, { role: 'assistant', content: 'done' }],
      ended_at: '2026-01-01T00:00:02.000Z',
    });
    const { sessions, loops, counts } = await store.snapshot('acme');
    expect(loops).toEqual([
      {
        id: expect.any(String),
        type: 'loop',
        tenant_id: 'acme',
        agent: 'default',
        session_id: 's1',
        run_id: 'r1',
        status: 'completed',
        started_at: '2026-01-01T00:00:00.000Z',
        ended_at: '2026-01-01T00:00:02.000Z',
        turns: 2,
        tool_calls: 2,
        finish_reason: 'stop',
        trace_id: 'trace-1',
        pending_node: null,
        error: null,
      },
    ]);
    expect(sessions).toEqual([
      {
        id: 's1',
        type: 'session',
        tenant_id: 'acme',
        agent: 'default',
        prompt: 'the prompt',
        text: 'done',
        finish_reason: 'stop',
        tool_calls: 2,
        turns: 2,
        run_id: 'r1',
        runs: 1,
        updated_at: '2026-01-01T00:00:02.000Z',
      },
    ]);
    expect(counts).toMatchObject({ running_loops: 0, completed_loops: 1 });
  });

  it('keeps copies: changing the record after an event changes nothing recorded', async () => {
    const { events, store } = setUp();
    const record = run();
    events.started(record);
    record.status = 'completed';
    record.turns = 9;
    expect((await store.snapshot('acme')).loops[0]).toMatchObject({ status: 'running', turns: 0 });
  });

  it('shows a paused run as a paused loop with its node and no session until it ends', async () => {
    const { events, store } = setUp();
    const record = run({ agent: 'refund' });
    events.started(record);
    await settle(events, { ...record, status: 'paused', paused: true, pending_node: 'pay' });
    expect(await store.snapshot('acme')).toMatchObject({
      sessions: [],
      loops: [{ status: 'paused', pending_node: 'pay' }],
      counts: { paused_loops: 1, running_loops: 0 },
    });
    events.started({ ...record, status: 'running' });
    expect((await store.snapshot('acme')).loops).toMatchObject([
      { status: 'running', pending_node: null },
    ]);
    await settle(events, { ...record, status: 'denied', finish_reason: 'stop', ended_at: 'x' });
    expect(await store.snapshot('acme')).toMatchObject({
      loops: [{ status: 'denied' }],
      sessions: [{ id: 's1', finish_reason: 'stop' }],
      counts: { loops: 1, sessions: 1, denied_loops: 1 },
    });
  });

  it('records a failed run with its reason and clips long texts', async () => {
    const { events, store } = setUp();
    const long = 'x'.repeat(STUDIO_MAX_TEXT + 50);
    events.started(run({ messages: [{ role: 'user', content: long }] }));
    await settle(
      events,
      run({
        status: 'failed',
        finish_reason: 'error',
        messages: [{ role: 'user', content: long }],
        error: { status: 502, type: 'urn:svc:problem:provider-failed', detail: 'model down' },
        ended_at: '2026-01-01T00:00:01.000Z',
      }),
    );
    const { sessions, loops } = await store.snapshot('acme');
    expect(loops[0]).toMatchObject({ status: 'failed', error: 'model down' });
    expect(sessions[0].finish_reason).toBe('error');
    expect(sessions[0].prompt).toHaveLength(STUDIO_MAX_TEXT);
    expect(sessions[0].prompt.endsWith('…')).toBe(true);
  });

  it('records nothing of a settlement whose record was not written', async () => {
    const { events, store } = setUp();
    const record = run();
    events.started(record);
    await settle(events, { ...record, status: 'completed', ended_at: 'x' }, false);
    expect(await store.snapshot('acme')).toMatchObject({
      loops: [{ status: 'running' }],
      sessions: [],
    });
  });

  it('stops recording once destroyed', async () => {
    const { events, store, recorder } = setUp();
    recorder.onModuleDestroy();
    events.started(run());
    expect((await store.snapshot(undefined)).counts.loops).toBe(0);
  });
});
