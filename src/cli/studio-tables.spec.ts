import { describe, expect, it } from '@jest/globals';
import type { StudioSnapshot } from '../studio/studio-records.js';
import { studioTables } from './studio-tables.js';
import { printable, textTable } from './text-table.js';

describe('textTable', () => {
  it('aligns columns, right-aligns numbers, cuts long text and says (none) for no rows', () => {
    const columns = [
      { title: 'NAME', value: (r: { name: string; n: number }) => r.name, maxWidth: 6 },
      { title: 'N', value: (r: { name: string; n: number }) => r.n },
    ];
    expect(
      textTable(columns, [
        { name: 'short', n: 7 },
        { name: 'much longer', n: 1234 },
      ]),
    ).toBe('NAME       N\nshort      7\nmuch …  1234\n');
    expect(textTable(columns, [])).toBe('NAME  N\n(none)\n');
  });

  it('keeps control characters away from the terminal', () => {
    expect(printable('line one\nline\ttwo \u001b[31mred\u0007')).toBe('line one line two [31mred');
  });
});

describe('studioTables', () => {
  it('prints the sessions, the loops and the counts', () => {
    const snapshot: StudioSnapshot = {
      sessions: [
        {
          id: 's1',
          type: 'session',
          tenant_id: 'acme',
          agent: 'default',
          prompt: 'hello\nthere',
          text: 'hi',
          finish_reason: 'stop',
          tool_calls: 0,
          turns: 1,
          run_id: 'r1',
          runs: 1,
          updated_at: '2026-01-01T00:00:01.000Z',
        },
      ],
      loops: [
        {
          id: 'l1',
          type: 'loop',
          tenant_id: 'acme',
          agent: 'refund',
          session_id: 's2',
          run_id: 'r2',
          status: 'paused',
          started_at: '2026-01-01T00:00:00.000Z',
          ended_at: null,
          turns: 0,
          tool_calls: 1,
          finish_reason: null,
          trace_id: null,
          pending_node: 'pay',
          error: null,
        },
      ],
      counts: {
        sessions: 1,
        loops: 3,
        running_loops: 0,
        paused_loops: 1,
        completed_loops: 2,
        failed_loops: 0,
        denied_loops: 0,
      },
    };
    const text = studioTables(snapshot);
    expect(text).toContain('Sessions (1)\nSESSION  TENANT  AGENT    TURNS  TOOL CALLS  FINISH');
    expect(text).toContain('s1       acme    default      1           0  stop    hello there  hi');
    expect(text).toContain('Loops (1 of 3)\n');
    expect(text).toMatch(/r2 +acme +refund +paused at pay +0 +1 +- +2026-01-01 00:00:00 +- +s2/);
    expect(text).toContain('sessions 1 · loops 3 · running_loops 0 · paused_loops 1');
  });
});
