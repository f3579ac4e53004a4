import { describe, expect, it } from '@jest/globals';
import { mapConcurrently } from './concurrency.js';

/** A task per item that waits until the test releases it. */
function gated() {
  let inFlight = 0;
  let most = 0;
  const started: number[] = [];
  const waiting: Array<() => void> = [];
  const task = async (item: number) => {
    started.push(item);
    inFlight++;
    most = Math.max(most, inFlight);
    await new Promise<void>((resolve) => waiting.push(resolve));
    inFlight--;
    if (item < 0) throw new Error(`item ${item} failed`);
    return item * 10;
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    task,
    started,
    most: () => most,
    waiting,
    settle,
    async releaseAll() {
      while (waiting.length > 0) {
        waiting.shift()!();
        await settle();
      }
    },
  };
}

describe('mapConcurrently', () => {
  it('keeps at most `limit` calls in flight and the results in order', async () => {
    const g = gated();
    const items = Array.from({ length: 20 }, (_, i) => i);
    const done = mapConcurrently(items, 8, g.task);
    await g.settle();
    expect(g.started).toHaveLength(8);
    g.waiting.shift()!();
    await g.settle();
    expect(g.started).toHaveLength(9);
    await g.releaseAll();
    await expect(done).resolves.toEqual(items.map((i) => i * 10));
    expect(g.most()).toBe(8);
  });

  it('starts nothing more after a failure, and rejects with it', async () => {
    const g = gated();
    const done = mapConcurrently([-1, 1, 2, 3, 4], 2, g.task);
    await g.settle();
    expect(g.started).toEqual([-1, 1]);
    g.waiting.shift()!(); // -1 fails
    await expect(done).rejects.toThrow('item -1 failed');
    await g.releaseAll();
    expect(g.started).toEqual([-1, 1]);
  });

  it('handles no items', async () => {
    await expect(mapConcurrently([], 8, () => Promise.resolve(1))).resolves.toEqual([]);
  });
});
