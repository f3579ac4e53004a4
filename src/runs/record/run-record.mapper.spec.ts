import { describe, expect, it } from '@jest/globals';
import type { JsonValue } from '../../platform/state/state-store.js';
import { RUN_FORMAT, type StoredRun } from './run-record.js';
import { readStoredRun, runView } from './run-record.mapper.js';

const base = {
  run_id: 'r1',
  session_id: 's1',
  tenant_id: 'acme',
  agent: 'default',
  status: 'paused',
  text: '',
  finish_reason: null,
  turns: 0,
  tool_calls: 0,
  messages: [],
  trace_id: null,
  started_at: '2026-11-01T00:00:00.000Z',
  ended_at: null,
};

describe('run record mapper', () => {
  it('reads a record written before formats (format 1) as the current format', () => {
    const old = { ...base, graph: { span_id: 'abc', steps: [] } } as unknown as JsonValue;
    const read = readStoredRun(old);
    expect(read.format).toBe(RUN_FORMAT);
    // The first span moved from the graph state to the record.
    expect(read.span_id).toBe('abc');
    expect(read.status).toBe('paused');
  });

  it('keeps a newer format as written (a rolling upgrade), reading the API fields', () => {
    const newer = { ...base, format: RUN_FORMAT + 1, future: true } as unknown as JsonValue;
    expect(readStoredRun(newer)).toMatchObject({ format: RUN_FORMAT + 1, run_id: 'r1' });
  });

  it('shows the API shape: no format, checkpoint, actor or span id', () => {
    const stored = {
      ...base,
      format: RUN_FORMAT,
      loop: {
        toolset: 'ops',
        max_turns: 4,
        continues_session: false,
        session_version: 0,
        turn: null,
      },
      actor: 'key-1',
      span_id: 'abc',
    } as StoredRun;
    const view = runView(stored) as unknown as Record<string, unknown>;
    expect(Object.keys(view).sort()).toEqual(Object.keys(base).sort());
  });
});
