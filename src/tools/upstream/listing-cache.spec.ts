import { describe, expect, it } from '@jest/globals';
import { type Listing, ListingCache } from './listing-cache.js';
import type { UpstreamTool } from './upstream-names.js';

const tool = (name: string): UpstreamTool => ({ name, inputSchema: { type: 'object' } });
const names = (listing: Listing) => (listing.ok ? listing.tools.map((t) => t.name) : listing.error);

/** A cache on a clock the test moves, and a fetch the test answers. */
function setup() {
  let now = 1_000;
  const cache = new ListingCache({
    ttlMs: 60_000,
    failureTtlMs: 5_000,
    capacity: 10,
    maxBytes: 1_000_000,
    now: () => now,
  });
  let calls = 0;
  let answer: () => Promise<UpstreamTool[]> = () => Promise.resolve([tool('a')]);
  const get = () =>
    cache.get(
      'k',
      () => {
        calls += 1;
        return answer();
      },
      (error) => (error as Error).message,
    );
  return {
    cache,
    get,
    advance: (ms: number) => (now += ms),
    answer: (next: () => Promise<UpstreamTool[]>) => (answer = next),
    calls: () => calls,
  };
}

describe('ListingCache', () => {
  it('fetches once for concurrent readers, then serves the list until its TTL', async () => {
    const t = setup();
    const [first, second] = await Promise.all([t.get(), t.get()]);
    expect(names(first)).toEqual(['a']);
    expect(second).toBe(first);
    t.advance(59_000);
    await t.get();
    expect(t.calls()).toBe(1);
  });

  it('serves a stale list at once and refreshes it in the background', async () => {
    const t = setup();
    await t.get();
    t.advance(61_000);
    t.answer(() => Promise.resolve([tool('a'), tool('b')]));
    expect(names(await t.get())).toEqual(['a']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(names(await t.get())).toEqual(['a', 'b']);
    expect(t.calls()).toBe(2);
  });

  it('keeps a failure for a while, then waits for a new attempt', async () => {
    const t = setup();
    t.answer(() => Promise.reject(new Error('upstream MCP server unreachable')));
    expect(await t.get()).toMatchObject({ ok: false, error: 'upstream MCP server unreachable' });
    t.advance(4_000);
    await t.get();
    expect(t.calls()).toBe(1);
    t.advance(2_000);
    t.answer(() => Promise.resolve([tool('back')]));
    expect(names(await t.get())).toEqual(['back']);
    expect(t.calls()).toBe(2);
  });

  it('keeps a working list through a failed refresh, and does not retry it on every read', async () => {
    const t = setup();
    await t.get();
    t.advance(61_000);
    t.answer(() => Promise.reject(new Error('down')));
    await t.get();
    await new Promise((resolve) => setImmediate(resolve));
    expect(names(await t.get())).toEqual(['a']);
    expect(t.calls()).toBe(2);
    // Past twice the TTL the list is no longer believed.
    t.advance(60_000);
    await t.get();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await t.get()).toMatchObject({ ok: false, error: 'down' });
  });

  it('takes a list the upstream announced over one being fetched', async () => {
    const t = setup();
    let finish: (tools: UpstreamTool[]) => void = () => undefined;
    t.answer(() => new Promise((resolve) => (finish = resolve)));
    const pending = t.get();
    t.cache.replace('k', [tool('pushed')]);
    finish([tool('fetched')]);
    expect(names(await pending)).toEqual(['pushed']);
    expect(names(await t.get())).toEqual(['pushed']);
  });

  it('gives each list a stamp that changes with its contents', async () => {
    const t = setup();
    const first = await t.get();
    t.cache.replace('k', [tool('a')]);
    const same = await t.get();
    t.cache.replace('k', [tool('a'), tool('b')]);
    const changed = await t.get();
    expect(first.ok && same.ok && changed.ok).toBe(true);
    if (!first.ok || !same.ok || !changed.ok) return;
    expect(same.stamp).toBe(first.stamp);
    expect(changed.stamp).not.toBe(first.stamp);
  });
});
