import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { EntryWrite } from '../../platform/state/state-store.js';
import type { NewRunEvent, RunEvent } from './run-event.js';
import { RunJournal } from './run-journal.js';

/**
 * An in-memory log: numbers events like the store, records each append as one statement (with
 * the write it was conditioned on); `holds` says whether such a write holds.
 */
function memoryLog(fail = 0, holds: (write: EntryWrite) => boolean = () => true) {
  const statements: NewRunEvent[][] = [];
  const conditions: Array<EntryWrite | undefined> = [];
  let failures = fail;
  let last = 0;
  const append = async (events: NewRunEvent[], onlyIf?: EntryWrite): Promise<RunEvent[]> => {
    await Promise.resolve();
    if (failures-- > 0) throw new Error('backend away');
    if (onlyIf && !holds(onlyIf)) return [];
    statements.push(events);
    conditions.push(onlyIf);
    return events.map((event) => ({
      id: ++last,
      type: event.type,
      at: new Date(event.at).toISOString(),
      data: event.data,
    }));
  };
  return { append, statements, conditions, all: () => statements.flat() };
}

const write = (version: number): EntryWrite => ({
  key: { tenantId: 't', sessionId: 'run:r', key: 'record' },
  version,
  json: '{}',
});
/** The settled record's write at `version`, committed (or failed: `outcome` rejects). */
const belongsTo = (version: number, outcome: Promise<unknown> = Promise.resolve()) => {
  outcome.catch(() => undefined);
  return { write: write(version), outcome };
};

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

  it('writes an event that belongs to a write with the events before it, on its condition', async () => {
    const log = memoryLog();
    const journal = new RunJournal('t', 'r', log.append, options());
    journal.emit('run.started', {});
    journal.emit('run.progressed', { turns: 1 });
    journal.emit('run.settled', { n: 1 }, belongsTo(3));
    journal.emit('run.cancel_requested', {});
    await journal.flush();
    expect(log.statements.map((batch) => batch.map((event) => event.type))).toEqual([
      ['run.started', 'run.progressed', 'run.settled'],
      ['run.cancel_requested'],
    ]);
    expect(log.conditions).toEqual([write(3), undefined]);
  });

  it('ends the wait of a drain gathering a batch, in time for the group of its write', async () => {
    const log = memoryLog();
    const asked: NewRunEvent[][] = [];
    const journal = new RunJournal(
      't',
      'r',
      (events, onlyIf) => {
        asked.push(events);
        return log.append(events, onlyIf);
      },
      options(),
    );
    journal.emit('run.started', {});
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual([]); // gathering (up to 100 ms)
    // A statement group goes out at the end of the I/O round in which its first write was asked.
    const groupGoes = new Promise((resolve) => setImmediate(() => resolve(asked.length)));
    journal.emit('run.settled', {}, belongsTo(2));
    expect(await groupGoes).toBe(1);
    await journal.flush();
    expect(log.all().map((event) => event.type)).toEqual(['run.started', 'run.settled']);
  });

  it('leaves out an event whose write does not hold, and writes the events before it', async () => {
    const log = memoryLog(0, (w) => w.version !== 5);
    const journal = new RunJournal('t', 'r', log.append, options());
    journal.emit('run.started', {});
    journal.emit('tool.finished', { call_id: 'a' });
    journal.emit(
      'run.settled',
      { lost: true },
      belongsTo(5, Promise.reject(new Error('conflict'))),
    );
    await journal.flush();
    expect(log.all().map((event) => event.type)).toEqual(['run.started', 'tool.finished']);
    expect(log.conditions).toEqual([undefined]);

    const alone = memoryLog(0, () => false);
    const settledOnly = new RunJournal('t', 'r', alone.append, options());
    settledOnly.emit('run.settled', {}, belongsTo(2));
    await settledOnly.flush();
    expect(alone.statements).toEqual([]);
  });

  it('asks again, once its write is committed, for an event sent before that', async () => {
    // On PostgreSQL a batch sent after the write's own group may run on another connection
    // before that group commits: the condition does not hold yet.
    let committed = false;
    let commit!: () => void;
    const outcome = new Promise<void>((resolve) => (commit = resolve)).then(() => {
      committed = true;
    });
    const log = memoryLog(0, () => committed);
    const journal = new RunJournal('t', 'r', log.append, options());
    journal.emit('tool.finished', { call_id: 'a' });
    journal.emit('run.settled', {}, belongsTo(4, outcome));
    await new Promise((resolve) => setTimeout(resolve, 10));
    commit();
    await journal.flush();
    expect(log.all().map((event) => event.type)).toEqual(['tool.finished', 'run.settled']);
    expect(log.conditions).toEqual([write(4)]);
  });
});
