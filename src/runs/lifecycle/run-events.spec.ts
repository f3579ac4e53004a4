import { describe, expect, it } from '@jest/globals';
import type { RunRecord } from '../record/run-record.js';
import { RunEvents } from './run-events.js';

const record = { run_id: 'r1', status: 'running' } as RunRecord;

describe('RunEvents', () => {
  it('tells every observer, in order, and keeps going when one throws', () => {
    const events = new RunEvents();
    const seen: string[] = [];
    events.subscribe({
      runStarted: () => {
        throw new Error('broken observer');
      },
    });
    const stop = events.subscribe({
      runStarted: (r) => seen.push(`started ${r.run_id}`),
      runSettled: (r) => seen.push(`settled ${r.status}`),
    });
    expect(() => events.started(record)).not.toThrow();
    events.progressed(record);
    events.settled({ ...record, status: 'completed' });
    stop();
    events.started(record);
    expect(seen).toEqual(['started r1', 'settled completed']);
  });

  it('waits for every observer that writes in the background, whatever one of them throws', async () => {
    const events = new RunEvents();
    const written: string[] = [];
    let finish = () => undefined as void;
    events.subscribe({ flush: () => Promise.reject(new Error('store away')) });
    events.subscribe({
      flush: () =>
        new Promise<void>((resolve) => {
          finish = () => {
            written.push('slow');
            resolve();
          };
        }),
    });
    events.subscribe({ runStarted: () => undefined });
    const flushed = events.flush().then(() => written.push('flushed'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual([]);
    finish();
    await flushed;
    expect(written).toEqual(['slow', 'flushed']);
  });
});
