import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { NewRunEvent, RunEvent } from './run-event.js';
import { RunJournal } from './run-journal.js';

/** An in-memory log: numbers events like the store, records each append as one statement. */
function memoryLog(fail = 0) {
  const statements: NewRunEvent[][] = [];
  let failures = fail;
  let last = 0;
  const append = async (events: NewRunEvent[]): Promise<RunEvent[]> => {
    await Promise.resolve();
    if (failures-- > 0) throw new Error('backend away');
    statements.push(events);
    return events.map((event) => ({
      id: ++last,
      type: event.type,
      at: new Date(event.at).toISOString(),
      data: event.data,
    }));
  };
  return { append, statements, all: () => statements.flat() };
}

const options = (extra: Partial<{ maxEvents: number; deltas: boolean }> = {}) => ({
  maxEvents: 1000,
  deltas: true,
  logger: { warn: () => undefined } as unknown as Logger,
  ...extra,
});

describe('RunJournal', () => {
  it('writes a burst of events in one statement, in order, and flush waits for it', async () => {
    const log = memoryLog();
    const journal = new RunJournal('t', 'r', log.append, options());
    journal.emit('run.started', { n: 1 });
    for (let i = 0; i < 50; i++) journal.emit('model.delta', { turn: 1, text: `w${i} ` });
    journal.emit('run.settled', { n: 2 });
    await journal.flush();
    expect(log.statements).toHaveLength(1);
    expect(log.all().map((event) => event.type)).toEqual([
      'run.started',
      ...Array(50).fill('model.delta'),
      'run.settled',
    ]);
  });

  it('keeps emitting order across statements written one after another', async () => {
    const log = memoryLog();
    const journal = new RunJournal('t', 'r', log.append, options());
    journal.emit('run.started', {});
    await journal.flush();
    journal.emit('tool.started', { call_id: 'a' });
    journal.emit('tool.finished', { call_id: 'a' });
    await journal.flush();
    expect(log.all().map((event) => event.type)).toEqual([
      'run.started',
      'tool.started',
      'tool.finished',
    ]);
  });

  it('adds the current graph step to events emitted inside it', async () => {
    const log = memoryLog();
    const journal = new RunJournal('t', 'r', log.append, options());
    journal.within(() => {
      RunJournal.inStep('look', () => RunJournal.current()?.emit('tool.started', { call_id: 'x' }));
      RunJournal.current()?.emit('run.progressed', {});
    });
    await journal.flush();
    expect(log.all().map((event) => event.data)).toEqual([{ step: 'look', call_id: 'x' }, {}]);
  });

  it('writes no deltas for a run that does not stream, nor past the log bound', async () => {
    const quiet = memoryLog();
    const journal = new RunJournal('t', 'r', quiet.append, options({ deltas: false }));
    journal.emit('model.delta', { text: 'x' });
    journal.emit('run.settled', {});
    await journal.flush();
    expect(quiet.all().map((event) => event.type)).toEqual(['run.settled']);

    const full = memoryLog();
    const bounded = new RunJournal('t', 'r', full.append, options({ maxEvents: 3 }));
    for (let i = 0; i < 3; i++) bounded.emit('model.delta', { text: `${i}` });
    await bounded.flush();
    bounded.emit('model.delta', { text: 'dropped' });
    bounded.emit('run.settled', {});
    await bounded.flush();
    expect(full.all().map((event) => event.data.text ?? event.type)).toEqual([
      '0',
      '1',
      '2',
      'run.settled',
    ]);
  });

  it('tries a failed write again, and gives a batch up (logged) rather than fail the run', async () => {
    const flaky = memoryLog(2);
    const journal = new RunJournal('t', 'r', flaky.append, options());
    journal.emit('run.started', {});
    await journal.flush();
    expect(flaky.all()).toHaveLength(1);

    const down = memoryLog(100);
    const lost = new RunJournal('t', 'r', down.append, options());
    lost.emit('run.started', {});
    await expect(lost.flush()).resolves.toBeUndefined();
    expect(down.all()).toHaveLength(0);
  });
});
