import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { StateNotifications } from '../../platform/state/state-notifications.js';
import type { RunEvent } from './run-event.js';
import { RUN_EVENTS_CHANNEL, RunEventStore } from './run-event.store.js';

/** Events one read from the store answers at most. */
const PAGE = 500;
/** Recent events a tail keeps, so its subscribers read them from memory. */
const TAIL_KEEP = 1_000;
/**
 * A waiting subscriber re-reads this often even without a wake-up: a safety net for a
 * notification lost while the listening connection was down, not the way events arrive.
 */
const SAFETY_POLL_MS = 5_000;

/**
 * What this replica knows of one run's log while anyone here follows it: the last id seen and
 * the recent events, shared by every subscriber, so a hundred streams of one run cost one
 * read per change, not a hundred.
 */
class Tail {
  /** The last id known to exist (written here, read, or announced). */
  lastId = 0;
  events: RunEvent[] = [];
  subscribers = 0;
  /** Resolves once `lastId` is read from the store. */
  ready: Promise<void>;
  private waiters = new Set<() => void>();
  private refreshing: Promise<void> | null = null;
  /** A change was announced while a read was under way. */
  private again = false;

  constructor(
    private readonly read: (afterId: number) => Promise<RunEvent[]>,
    last: () => Promise<number>,
    private readonly logger: Logger,
  ) {
    this.ready = last().then((id) => {
      this.lastId = Math.max(this.lastId, id);
    });
  }

  /** Events after `cursor` from memory, or null when memory does not reach back that far. */
  fromMemory(cursor: number): RunEvent[] | null {
    const first = this.events[0];
    if (!first || first.id > cursor + 1) return null;
    const from = cursor + 1 - first.id;
    return this.events.slice(from, from + PAGE);
  }

  /** Events written here or read: kept when they follow on from the last one known. */
  add(events: RunEvent[]): void {
    const fresh = events.filter((event) => event.id > this.lastId);
    if (fresh.length === 0) return;
    if (fresh[0].id !== this.lastId + 1) {
      // A gap (another writer's events in between): read them in order instead.
      this.refresh();
      return;
    }
    if (this.events.length > 0 && this.events.at(-1)!.id !== this.lastId) this.events = [];
    this.events.push(...fresh);
    if (this.events.length > TAIL_KEEP) this.events.splice(0, this.events.length - TAIL_KEEP);
    this.lastId = fresh.at(-1)!.id;
    this.wake();
  }

  /**
   * Reads what was written after the last id known here, one read at a time. A change announced
   * while a read is under way may have been written after that read looked: it is read again
   * once the read ends, or it would wait for the safety poll.
   */
  refresh(): void {
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.again = false;
    this.refreshing = this.read(this.lastId)
      .then((events) => {
        this.refreshing = null;
        if (events.length > 0) this.add(events);
        if (events.length === PAGE || this.again) this.refresh();
      })
      .catch((error: unknown) => {
        this.refreshing = null;
        this.logger.warn(`reading a run's events failed: ${String(error)}`);
        this.wake();
      });
  }

  /** Resolves on the next change, the safety poll, or the abort. */
  changed(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        this.refresh();
      }, SAFETY_POLL_MS);
      signal.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/**
 * Live delivery of run events on this replica. Subscribers read a run's log from where they
 * are (`after`: the last id they received) and then wait for changes: events written here are
 * handed over as they are written, events written on another replica arrive by PostgreSQL
 * NOTIFY (the append's own), and a reconnect of the listening connection makes every tail
 * re-read. A subscriber therefore receives each event once, in order, whichever replica wrote
 * it, including across a takeover.
 */
@Injectable()
export class RunEventFeed implements OnModuleInit {
  private readonly logger = new Logger(RunEventFeed.name);
  private readonly tails = new Map<string, Tail>();

  constructor(
    private readonly store: RunEventStore,
    private readonly notifications: StateNotifications,
  ) {}

  onModuleInit(): void {
    this.notifications.onReconnect(() => {
      for (const tail of this.tails.values()) tail.refresh();
    });
  }

  /** The id of the run's last event now (0 when it has none): where a reader is up to date. */
  lastId(tenantId: string, runId: string): Promise<number> {
    return this.store.lastId(tenantId, runId);
  }

  /** Events just written on this replica. */
  published(tenantId: string, runId: string, events: RunEvent[]): void {
    this.tails.get(key(tenantId, runId))?.add(events);
  }

  /**
   * The run's events after `after`, batch by batch as they come, until `signal` aborts (the
   * caller stops at the run's last event). Nothing is missed between the read of what exists
   * and the wait for what comes.
   */
  async *follow(
    tenantId: string,
    runId: string,
    after: number,
    signal: AbortSignal,
  ): AsyncGenerator<RunEvent[]> {
    const tail = this.join(tenantId, runId);
    try {
      await tail.ready;
      let cursor = after;
      while (!signal.aborted) {
        if (cursor >= tail.lastId) {
          await tail.changed(signal);
          continue;
        }
        const batch =
          tail.fromMemory(cursor) ?? (await this.store.after(tenantId, runId, cursor, PAGE));
        if (batch.length === 0) {
          // The log is shorter than announced (pruned): nothing more will come from here.
          cursor = tail.lastId;
          continue;
        }
        cursor = batch.at(-1)!.id;
        if (cursor > tail.lastId) tail.add(batch);
        yield batch;
      }
    } finally {
      this.leave(tenantId, runId, tail);
    }
  }

  private join(tenantId: string, runId: string): Tail {
    const id = key(tenantId, runId);
    let tail = this.tails.get(id);
    if (!tail) {
      tail = new Tail(
        (afterId) => this.store.after(tenantId, runId, afterId, PAGE),
        () => this.store.lastId(tenantId, runId),
        this.logger,
      );
      // Nobody awaits it while it fails: the subscriber that does sees the error.
      tail.ready.catch(() => undefined);
      this.tails.set(id, tail);
      if (this.tails.size === 1) this.listen();
    }
    tail.subscribers += 1;
    return tail;
  }

  private leave(tenantId: string, runId: string, tail: Tail): void {
    tail.subscribers -= 1;
    if (tail.subscribers > 0) return;
    this.tails.delete(key(tenantId, runId));
  }

  private listening = false;

  /** Listens for other replicas' appends from the first subscription on. */
  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.notifications.listen(RUN_EVENTS_CHANNEL, (payload) => {
      let note: unknown;
      try {
        note = JSON.parse(payload);
      } catch {
        return;
      }
      if (!Array.isArray(note) || note.length !== 3) return;
      const [tenantId, runId, lastId] = note as [string, string, number];
      const tail = this.tails.get(key(tenantId, runId));
      if (tail && Number(lastId) > tail.lastId) tail.refresh();
    });
  }
}

function key(tenantId: string, runId: string): string {
  return `${tenantId}\u0000${runId}`;
}
