import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { BackgroundWriter, type BackgroundWriterOptions } from './background-writer.js';
import { StateUnavailableError } from './state-store.js';

interface Item {
  key: string;
  value: number;
  /** The version of the write it was bound to (addWith). */
  boundTo?: number;
}

/** A writer over an in-memory "table" whose writes the test can hold, fail or let through. */
function setUp(options: Partial<BackgroundWriterOptions<Item>> = {}) {
  const batches: Item[][] = [];
  let failWith: Error | null = null;
  let gate: Promise<void> | null = null;
  const logger = new Logger('test');
  logger.warn = () => undefined;
  logger.log = () => undefined;
  const writer = new BackgroundWriter<Item>({
    what: 'items',
    logger,
    maxBatch: 3,
    maxPending: 10,
    gatherMs: 5,
    write: async (batch) => {
      if (gate) await gate;
      if (failWith) throw failWith;
      batches.push(batch);
    },
    ...options,
  });
  return {
    writer,
    batches,
    written: () =>
      batches
        .flat()
        .map((item) => `${item.key}=${item.value}${item.boundTo ? `@${item.boundTo}` : ''}`),
    fail: (error: Error | null) => (failWith = error),
    hold: () => {
      let release = () => undefined as void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = null;
        release();
      };
    },
  };
}

const item = (key: string, value = 1): Item => ({ key, value });

/** A write at `version` whose statement was just asked for, answered by `outcome`. */
const writeAt = (version: number, outcome: Promise<unknown> = Promise.resolve()) => ({
  write: { key: { tenantId: 't', sessionId: 's', key: 'k' }, version, json: '{}' },
  outcome,
});
const bind = (i: Item, write: { version: number }): Item => ({ ...i, boundTo: write.version });
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

describe('BackgroundWriter', () => {
  it('gathers items into ordered batches of at most maxBatch, off the caller', async () => {
    const { writer, batches, written } = setUp();
    for (const key of ['a', 'b', 'c', 'd']) expect(writer.add(item(key))).toBe(true);
    expect(batches).toEqual([]);
    await writer.flush();
    expect(batches.map((batch) => batch.length)).toEqual([3, 1]);
    expect(written()).toEqual(['a=1', 'b=1', 'c=1', 'd=1']);
    expect(writer.size).toBe(0);
  });

  it('writes once per key while waiting, merged, in the place of the first', async () => {
    const { writer, written } = setUp({
      key: (i) => i.key,
      merge: (older, newer) => ({ key: newer.key, value: older.value + newer.value }),
    });
    writer.add(item('a', 1));
    writer.add(item('b', 1));
    writer.add(item('a', 5));
    await writer.flush();
    expect(written()).toEqual(['a=6', 'b=1']);
  });

  it('flush waits for the write under way and what was added before it, not for later items', async () => {
    const { writer, written, hold } = setUp();
    const release = hold();
    writer.add(item('a'));
    const first = writer.flush();
    await tick(10);
    writer.add(item('b'));
    let done = false;
    void first.then(() => (done = true));
    await tick(10);
    expect(done).toBe(false);
    release();
    await first;
    expect(written()[0]).toBe('a=1');
    await writer.flush();
    expect(written()).toEqual(['a=1', 'b=1']);
  });

  it('keeps the items through an outage, in order, and does not hold flushes during it', async () => {
    const { writer, written, fail } = setUp({
      key: (i) => i.key,
      merge: (older, newer) => ({ key: newer.key, value: older.value + newer.value }),
    });
    fail(new StateUnavailableError('down'));
    writer.add(item('a', 1));
    writer.add(item('b', 1));
    await writer.flush();
    expect(written()).toEqual([]);
    // During the backoff a flush answers at once, and new items merge into the kept ones.
    writer.add(item('a', 2));
    writer.add(item('c', 1));
    await writer.flush();
    expect(writer.size).toBe(3);
    fail(null);
    await tick(400);
    await writer.flush();
    expect(written()).toEqual(['a=3', 'b=1', 'c=1']);
    expect(writer.dropped).toBe(0);
  });

  it('drops what does not fit, and a batch the database refuses, and counts both', async () => {
    const { writer, written, fail } = setUp();
    fail(new StateUnavailableError('down'));
    for (let i = 0; i < 12; i++) writer.add(item(`k${i}`));
    expect(writer.dropped).toBe(2);
    await writer.flush();
    fail(new Error('value too long for type character varying(64)'));
    await tick(400);
    await writer.flush();
    // The kept items were refused batch by batch: nothing is retried forever.
    expect(writer.size).toBe(0);
    expect(writer.dropped).toBe(12);
    fail(null);
    writer.add(item('after'));
    await writer.flush();
    expect(written()).toEqual(['after=1']);
  });

  it('writes an item added in the moment a drain ends, whatever the microtasks between', async () => {
    for (let hops = 0; hops < 6; hops++) {
      const batches: string[][] = [];
      let late = false;
      const writer: BackgroundWriter<Item> = new BackgroundWriter<Item>({
        what: 'items',
        logger: new Logger('test'),
        maxBatch: 10,
        maxPending: 10,
        gatherMs: 1,
        write: (batch) => {
          batches.push(batch.map((i) => i.key));
          if (!late) {
            late = true;
            let chain = Promise.resolve();
            for (let i = 0; i < hops; i++) chain = chain.then(() => undefined);
            void chain.then(() => writer.add(item('late')));
          }
          return Promise.resolve();
        },
      });
      writer.add(item('first'));
      await tick(20);
      await writer.flush();
      expect({ hops, batches }).toEqual({ hops, batches: [['first'], ['late']] });
    }
  });

  it('sends items that go with a write at once, bound to it, after what waits', () => {
    const { writer, written } = setUp({ bind, gatherMs: 60_000 });
    writer.add(item('a'));
    writer.addWith([item('b'), item('c')], writeAt(2));
    // Asked for before addWith returned: in the same statement group as the write.
    expect(written()).toEqual(['a=1', 'b=1@2', 'c=1@2']);
  });

  it('lets an item that replaces the waiting one of its key take its place, and keeps merges apart', async () => {
    const { writer, written } = setUp({
      bind,
      gatherMs: 60_000,
      key: (i) => i.key,
      merge: (older, newer) => (newer.key === 'sum' ? { ...newer, value: older.value + 1 } : newer),
    });
    writer.add(item('loop', 1));
    writer.add(item('sum', 1));
    writer.addWith([item('loop', 7), item('sum', 1)], writeAt(3));
    await writer.flush();
    expect(written()).toEqual(['loop=7@3', 'sum=1', 'sum=1@3']);
  });

  it('while a batch is written, adds the items once their write is done, plainly, or not at all', async () => {
    const { writer, written, hold } = setUp({ bind });
    const release = hold();
    writer.add(item('a'));
    const first = writer.flush();
    await tick(10);
    let answer = (_done: boolean) => undefined as void;
    const done = new Promise((resolve, reject) => {
      answer = (ok) => (ok ? resolve(undefined) : reject(new Error('not written')));
    });
    done.catch(() => undefined);
    writer.addWith([item('b')], writeAt(2, done));
    writer.addWith([item('c')], writeAt(2, Promise.reject(new Error('conflict'))));
    const flushed = writer.flush();
    release();
    await first;
    await tick(10);
    expect(written()).toEqual(['a=1']);
    answer(true);
    // The flush asked for after addWith waited for the write, then for its item.
    await flushed;
    expect(written()).toEqual(['a=1', 'b=1']);
    expect(writer.dropped).toBe(0);
  });

  it('writes what is left at close, and drops what comes after', async () => {
    const { writer, written } = setUp({ gatherMs: 60_000 });
    writer.add(item('a'));
    writer.add(item('b'));
    await writer.close();
    expect(written()).toEqual(['a=1', 'b=1']);
    expect(writer.add(item('late'))).toBe(false);
    expect(writer.dropped).toBe(1);
  });
});
