import { describe, expect, it } from '@jest/globals';
import type { RunEvent, RunEventData, RunEventType } from '../runs/events/run-event.js';
import type { RunRecord } from '../runs/record/run-record.js';
import { RunProgress } from './run-progress.js';

let id = 0;
const event = (type: RunEventType, data: RunEventData = {}): RunEvent => ({
  id: ++id,
  type,
  at: '2026-11-23T00:00:00.000Z',
  data,
});

const record = (over: Partial<RunRecord> = {}): RunRecord => ({
  run_id: 'r-1',
  session_id: 's-1',
  tenant_id: 'acme',
  agent: 'default',
  status: 'completed',
  text: 'It is 14.',
  finish_reason: 'stop',
  turns: 2,
  tool_calls: 1,
  messages: [],
  trace_id: null,
  started_at: '',
  ended_at: '',
  ...over,
});

function progress() {
  const out: string[] = [];
  const err: string[] = [];
  // One terminal: both sinks in the order written, stdout marked.
  const screen: string[] = [];
  const shown = new RunProgress({
    text: (chunk) => (out.push(chunk), screen.push(chunk)),
    progress: (line) => (err.push(line), screen.push(line)),
  });
  return { shown, out, err, screen };
}

describe('svc run --stream output', () => {
  it('writes text as it comes, tool calls as lines, and ends with the summary only', () => {
    const { shown, out, err, screen } = progress();
    for (const each of [
      event('run.started', { run: {} }),
      event('model.delta', { turn: 1, text: 'Let me ' }),
      event('model.delta', { turn: 1, text: 'check.' }),
      event('model.delta', { turn: 1, tool_call: { index: 0, name: 'calc' } }),
      event('tool.started', { turn: 1, call_id: 'c1', name: 'calc', arguments: { x: '2*7' } }),
      event('tool.finished', {
        turn: 1,
        call_id: 'c1',
        name: 'calc',
        duration_ms: 12,
        is_error: false,
        result: '14',
      }),
      event('run.progressed', { turns: 1, tool_calls: 1 }),
      event('model.delta', { turn: 2, text: 'It is ' }),
      event('model.delta', { turn: 2, text: '14.' }),
      event('run.progressed', { turns: 2, tool_calls: 1 }),
    ]) {
      shown.show(each);
    }
    const end = shown.finish(record());
    expect(out.join('')).toBe('Let me check.\nIt is 14.\n');
    expect(err).toEqual(['→ tool calc {"x":"2*7"}\n', '← calc 12 ms\n']);
    // The line of text ends before a progress line starts.
    expect(screen.join('')).toBe(
      'Let me check.\n→ tool calc {"x":"2*7"}\n← calc 12 ms\nIt is 14.\n',
    );
    expect(end).toBe('\nturns: 2 · tool calls: 1 · finish: stop · session: s-1\n');
  });

  it('prints the whole reply when the stream did not spell it (no deltas)', () => {
    const { shown } = progress();
    shown.show(event('run.started', { run: {} }));
    expect(shown.finish(record({ text: 'done', turns: 1, tool_calls: 0 }))).toBe(
      'done\n\nturns: 1 · tool calls: 0 · finish: stop · session: s-1\n',
    );
  });

  it('names errors, steps, approvals, takeovers and cancellation', () => {
    const { shown, out, err } = progress();
    shown.show(event('step.started', { step: 'look', kind: 'agent', attempt: 2 }));
    shown.show(event('model.delta', { step: 'look', turn: 1, text: 'looking' }));
    shown.show(
      event('tool.finished', {
        step: 'look',
        turn: 1,
        call_id: 'c',
        name: 'lookup',
        duration_ms: 5,
        is_error: true,
        result: `no such\norder ${'x'.repeat(300)}`,
      }),
    );
    shown.show(event('step.finished', { step: 'look', status: 'failed', error: 'boom' }));
    shown.show(event('approval.requested', { node: 'pay' }));
    shown.show(event('approval.decided', { node: 'pay', decision: 'approved', by: 'ops' }));
    shown.show(event('run.taken_over', { run: {} }));
    shown.show(event('run.cancel_requested', { by: 'ops' }));
    expect(out.join('')).toBe('[look] looking\n');
    expect(err[0]).toBe('▸ step look (agent, attempt 2)\n');
    expect(err[1]).toMatch(/^\[look\] ← lookup error 5 ms: no such order x+…\n$/);
    expect(err[1].length).toBeLessThan(240);
    expect(err.slice(2)).toEqual([
      '▪ step look failed: boom\n',
      '‖ pay waits for approval\n',
      '‖ pay approved by ops\n',
      '↻ another replica took the run over; it goes on there\n',
      '✕ cancel requested by ops\n',
    ]);
  });

  it('says where a paused run waits', () => {
    const { shown } = progress();
    expect(shown.finish(record({ status: 'paused', pending_node: 'pay' }))).toBe(
      'run r-1 paused: node pay waits for approval (POST /v1/runs/r-1/approve or /deny)\n',
    );
  });
});
