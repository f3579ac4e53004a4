import { describe, expect, it } from '@jest/globals';
import type { StateNotifications } from '../../platform/state/state-notifications.js';
import type { RunEvent } from './run-event.js';
import { RunEventFeed } from './run-event-feed.js';
import type { RunEventStore } from './run-event.store.js';

/** A store holding one run's log, counting the reads a feed makes of it. */
function fakeStore() {
  const log: RunEvent[] = [];
  let reads = 0;
  const store = {
    after: (_t: string, _r: string, afterId: number, limit: number) => {
      reads += 1;
      return Promise.resolve(log.filter((event) => event.id > afterId).slice(0, limit));
    },
    lastId: () => Promise.resolve(log.at(-1)?.id ?? 0),
  };
  const write = (type: RunEvent['type'] = 'tool.started'): RunEvent => {
    const event: RunEvent = { id: log.length + 1, type, at: new Date().toISOString(), data: {} };
    log.push(event);
    return event;
  };
  return { store: store as unknown as RunEventStore, write, reads: () => reads };
}

function fakeNotifications() {
  const handlers: Array<(payload: string) => void> = [];
  const notifications = {
    shared: true,
    listen: (_channel: string, handler: (payload: string) => void) => handlers.push(handler),
    onReconnect: () => undefined,
  };
  return {
    notifications: notifications as unknown as StateNotifications,
    send: (payload: unknown) => handlers.forEach((handler) => handler(JSON.stringify(payload))),
  };
}

/** Follows the run until `count` events arrived; answers their ids. */
async function take(feed: RunEventFeed, after: number, count: number, stop: AbortController) {
  const ids: number[] = [];
  for await (const batch of feed.follow('t', 'r', after, stop.signal)) {
    ids.push(...batch.map((event) => event.id));
    if (ids.length >= count) break;
  }
  return ids;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('RunEventFeed', () => {
  it('delivers what this replica writes to every follower from memory, each event once', async () => {
    const { store, write, reads } = fakeStore();
    const { notifications } = fakeNotifications();
    const feed = new RunEventFeed(store, notifications);
    write();
    const stop = new AbortController();
    const followers = Array.from({ length: 100 }, () => take(feed, 0, 4, stop));
    await tick();
    const readsBefore = reads();
    for (let i = 0; i < 3; i++) {
      const event = write();
      feed.published('t', 'r', [event]);
      await tick();
    }
    const received = await Promise.all(followers);
    for (const ids of received) expect(ids).toEqual([1, 2, 3, 4]);
    expect(reads() - readsBefore).toBe(0);
  });

  it('reads another replica’s events once per notification, however many follow', async () => {
    const { store, write, reads } = fakeStore();
    const { notifications, send } = fakeNotifications();
    const feed = new RunEventFeed(store, notifications);
    const stop = new AbortController();
    const followers = Array.from({ length: 50 }, () => take(feed, 0, 2, stop));
    await tick();
    const readsBefore = reads();
    write();
    write();
    send(['t', 'r', 2]);
    const received = await Promise.all(followers);
    for (const ids of received) expect(ids).toEqual([1, 2]);
    expect(reads() - readsBefore).toBe(1);
  });

  it('resumes a follower from the store where memory does not reach, then goes on live', async () => {
    const { store, write } = fakeStore();
    const { notifications } = fakeNotifications();
    const feed = new RunEventFeed(store, notifications);
    for (let i = 0; i < 5; i++) write();
    const stop = new AbortController();
    const follower = take(feed, 2, 4, stop);
    await tick();
    feed.published('t', 'r', [write()]);
    expect(await follower).toEqual([3, 4, 5, 6]);
  });

  it('fills a gap in what it was handed (another writer in between) from the store', async () => {
    const { store, write } = fakeStore();
    const { notifications } = fakeNotifications();
    const feed = new RunEventFeed(store, notifications);
    const stop = new AbortController();
    const follower = take(feed, 0, 3, stop);
    await tick();
    write(); // written elsewhere, not announced
    write();
    feed.published('t', 'r', [write()]);
    expect(await follower).toEqual([1, 2, 3]);
  });

  it('reads again for a notification that came while a read was under way', async () => {
    const { store, write } = fakeStore();
    // The first read of the log answers what was there before the second write was committed.
    let release: () => void = () => undefined;
    const slowStore = {
      ...store,
      after: (...args: Parameters<RunEventStore['after']>) => {
        const answer = store.after(...args);
        return new Promise<RunEvent[]>((resolve) => {
          release = () => void answer.then(resolve);
        });
      },
    } as unknown as RunEventStore;
    const { notifications, send } = fakeNotifications();
    const feed = new RunEventFeed(slowStore, notifications);
    const stop = new AbortController();
    const follower = take(feed, 0, 2, stop);
    await tick();
    write();
    send(['t', 'r', 1]);
    await tick();
    write();
    send(['t', 'r', 2]); // announced while the first read is still out
    const first = release;
    first();
    await tick();
    release();
    // Both arrive at once, not after the safety poll (5 s): the follower gives up after 1 s.
    const timer = setTimeout(() => stop.abort(), 1_000);
    expect(await follower).toEqual([1, 2]);
    clearTimeout(timer);
  });
});
