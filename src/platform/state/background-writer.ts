import type { Logger } from '@nestjs/common';
import { OutageLog } from '../logging/outage-log.js';
import { type EntryWrite, StateUnavailableError, type WriteInFlight } from './state-store.js';

export interface BackgroundWriterOptions<T> {
  /** What the items are, for log lines: `audit events`. */
  what: string;
  /** Writes one batch (at most `maxBatch` items, in the order they were added). */
  write(batch: T[]): Promise<void>;
  logger: Logger;
  maxBatch: number;
  /** Items held at most; beyond, new items are dropped (and counted). */
  maxPending: number;
  /** How long the first item waits for others to share its statement. */
  gatherMs: number;
  /**
   * Items with the same key are one pending item: a newer one is merged into the one waiting
   * (which keeps its place). Without it every item is written.
   */
  key?(item: T): string;
  merge?(older: T, newer: T): T;
  /**
   * The item carrying the condition that `write` holds, for `write` to check in SQL (see
   * `addWith`); needed only by a writer whose items go with other writes.
   */
  bind?(item: T, write: EntryWrite): T;
}

interface Entry<T> {
  item: T;
  /** The number of the add that created this entry (entries are held in this order). */
  gen: number;
}

interface Waiter {
  gen: number;
  resolve: () => void;
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;
/** A flush never waits longer than this, whatever the backend does. */
const FLUSH_MAX_WAIT_MS = 2_000;

/**
 * Writes items to the state backend off the caller's path: `add` is synchronous and never
 * throws; items gather for a moment and are written in batches, one statement at a time and in
 * order. While the backend is unavailable (StateUnavailableError) the items stay and the batch
 * is tried again with backoff, the outage logged once; the buffer is bounded, and what does not
 * fit is dropped and counted. A batch the database refuses for another reason is dropped (it
 * would never be written), counted and logged. `flush` waits until what was added before it has
 * been tried once (not through an outage: the caller must not be held by one); `close` writes
 * what is left at shutdown.
 */
export class BackgroundWriter<T> {
  private readonly pending = new Map<string, Entry<T>>();
  private readonly waiters: Waiter[] = [];
  private readonly outage: OutageLog;
  private gen = 0;
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> | null = null;
  /** The batch being written now. */
  private inFlight: T[] = [];
  /** Batches taken to be written since start (what a reader compares, see `unwritten`). */
  private batches = 0;
  private backingOff = false;
  private retryDelay = RETRY_MIN_MS;
  private closed = false;
  private droppedCount = 0;
  private dropLogged = false;
  /** addWith's items waiting for their write's outcome, as the promises that add them. */
  private readonly deferred = new Set<Promise<void>>();

  constructor(private readonly options: BackgroundWriterOptions<T>) {
    this.outage = new OutageLog(options.logger, `writing ${options.what}`);
  }

  /** Items waiting to be written. */
  get size(): number {
    return this.pending.size;
  }

  /** Whether an item that may not be written yet (waiting, or being written) matches. */
  holds(match: (item: T) => boolean): boolean {
    if (this.inFlight.some(match)) return true;
    for (const entry of this.pending.values()) if (match(entry.item)) return true;
    return false;
  }

  /**
   * Reads the database with what this writer still holds: `read()`'s answer and the items that
   * are not in it, neither flushed nor waited for beyond a write under way. Items waiting when
   * the read answers were never sent, and everything taken before the read was written before
   * it began; a batch taken while the read was under way could be in it or not, so the read is
   * made again (a read takes a moment, batches are gathered for longer).
   */
  async unwritten<R>(read: () => Promise<R>): Promise<{ read: R; waiting: T[] }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      while (this.writing) await this.writing;
      const batches = this.batches;
      const answer = await read();
      if (this.batches === batches) {
        return { read: answer, waiting: [...this.pending.values()].map((entry) => entry.item) };
      }
    }
    // Three tries under a steady stream of batches: flushed, then read as it is.
    await this.flush();
    return { read: await read(), waiting: [] };
  }

  /** Items dropped since start (buffer full, refused by the database, or left at shutdown). */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Queues `item`; false when it was dropped. */
  add(item: T): boolean {
    if (this.closed) return this.drop(1, 'after shutdown');
    const gen = ++this.gen;
    const key = this.options.key?.(item) ?? `#${gen}`;
    const waiting = this.pending.get(key);
    if (waiting) {
      waiting.item = this.options.merge ? this.options.merge(waiting.item, item) : item;
      return true;
    }
    if (this.pending.size >= this.options.maxPending) {
      return this.drop(1, `the buffer of ${this.options.maxPending} is full`);
    }
    this.pending.set(key, { item, gen });
    if (!this.writing && !this.timer && !this.backingOff) this.schedule(this.options.gatherMs);
    return true;
  }

  /**
   * Queues `items`, which go only with a write whose statement was just asked for (a run's
   * settled record, see EntryWrite). When the writer is free they are sent at once, bound to
   * that write's condition (`bind`), with what waits: in the write's statement group, so they
   * commit with it or not at all. Otherwise they cannot join that group: once the write is done
   * they are queued as they are, and dropped unwritten (not counted) if it failed.
   */
  addWith(items: T[], onlyIf: WriteInFlight): void {
    if (!this.options.bind) throw new TypeError(`${this.options.what}: addWith needs bind`);
    if (this.writing || this.backingOff || this.closed) {
      const added = onlyIf.outcome.then(
        () => items.forEach((item) => this.add(item)),
        () => undefined,
      );
      this.deferred.add(added);
      void added.then(() => this.deferred.delete(added));
      return;
    }
    for (const item of items) {
      const bound = this.options.bind(item, onlyIf.write);
      if (this.tookThePlaceOf(item, bound)) continue;
      if (this.pending.size >= this.options.maxPending) {
        this.drop(1, `the buffer of ${this.options.maxPending} is full`);
        continue;
      }
      const gen = ++this.gen;
      this.pending.set(`#${gen}`, { item: bound, gen });
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.startDraining();
  }

  /**
   * Resolves once every item added before the call has been tried once (written, or kept for a
   * retry because the backend is away); at once while the writer waits out an outage, and never
   * later than FLUSH_MAX_WAIT_MS. Items of addWith still waiting for their write count as added.
   */
  flush(): Promise<void> {
    if (this.deferred.size > 0) return this.afterDeferred().then(() => this.flush());
    if ((this.pending.size === 0 && !this.writing) || this.backingOff) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const waiter: Waiter = { gen: this.gen, resolve: () => undefined };
      const timeout = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        resolve();
      }, FLUSH_MAX_WAIT_MS);
      timeout.unref();
      waiter.resolve = () => {
        clearTimeout(timeout);
        resolve();
      };
      this.waiters.push(waiter);
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.startDraining();
      }
    });
  }

  /**
   * An item bound to a write that simply replaces the waiting item of its key takes its place;
   * one that would merge with it goes on its own (the merged item would take the condition
   * along, and the waiting item's part would be lost with a write that failed).
   */
  private tookThePlaceOf(item: T, bound: T): boolean {
    const key = this.options.key?.(item);
    const waiting = key === undefined ? undefined : this.pending.get(key);
    if (!waiting) return false;
    const merged = this.options.merge ? this.options.merge(waiting.item, bound) : bound;
    if (merged !== bound) return false;
    waiting.item = bound;
    return true;
  }

  /** Until addWith's waiting items are added (their writes answered), or FLUSH_MAX_WAIT_MS. */
  private afterDeferred(): Promise<void> {
    let timeout: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timeout = setTimeout(resolve, FLUSH_MAX_WAIT_MS);
      timeout.unref();
    });
    const added = Promise.all(this.deferred).then(() => clearTimeout(timeout));
    return Promise.race([added, late]).then(() => {
      // Past the bound: flushed as it stands, without them.
      this.deferred.clear();
    });
  }

  /**
   * `flush`, and whether what waits was sent in this call: the writer was free (no batch under
   * way, no outage), so its statement is asked for now, and a statement asked for later in the
   * same moment is queued behind it, in its group. Otherwise what waits goes after the batch
   * under way, or after the outage.
   */
  flushNow(): { sent: boolean; flushed: Promise<void> } {
    const sent = !this.writing && !this.backingOff && !this.closed;
    return { sent, flushed: this.flush() };
  }

  /**
   * At shutdown, while the backend is still open: waits for the write under way, then tries
   * every remaining batch once. What cannot be written is counted and logged; items added later
   * are dropped.
   */
  async close(): Promise<void> {
    if (this.deferred.size > 0) await this.afterDeferred();
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.backingOff = false;
    while (this.writing) await this.writing;
    while (this.pending.size > 0) {
      const batch = this.take();
      try {
        await this.options.write(batch.map((entry) => entry.item));
      } catch (error) {
        const lost = batch.length + this.pending.size;
        this.pending.clear();
        this.drop(lost, 'at shutdown');
        this.options.logger.warn({ err: error }, `${lost} ${this.options.what} were not written`);
      }
    }
    this.resolveWaiters(Infinity);
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.backingOff = false;
      this.startDraining();
    }, delayMs);
    this.timer.unref();
  }

  private startDraining(): void {
    if (this.writing || this.closed) return;
    this.writing = this.drain().finally(() => {
      this.writing = null;
      // Others' microtasks may have run between the loop's last look and this one.
      if (this.pending.size === 0) this.resolveWaiters(Infinity);
      else if (!this.timer && !this.backingOff && !this.closed) this.schedule(0);
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0 && !this.closed) {
      const batch = this.take();
      this.inFlight = batch.map((entry) => entry.item);
      try {
        await this.options.write(this.inFlight);
        this.outage.succeeded();
        this.retryDelay = RETRY_MIN_MS;
        this.dropLogged = false;
      } catch (error) {
        if (!(error instanceof StateUnavailableError)) {
          this.drop(batch.length, 'refused by the database', error);
        } else {
          this.putBack(batch);
          this.outage.failed(error);
          this.resolveWaiters(Infinity);
          this.backingOff = true;
          this.schedule(this.retryDelay);
          this.retryDelay = Math.min(this.retryDelay * 2, RETRY_MAX_MS);
          return;
        }
      } finally {
        this.inFlight = [];
      }
      const [head] = this.pending.values();
      this.resolveWaiters(head ? head.gen - 1 : Infinity);
    }
  }

  /** The oldest entries, at most one batch. */
  private take(): Array<Entry<T>> {
    this.batches++;
    const batch: Array<Entry<T>> = [];
    for (const [key, entry] of this.pending) {
      if (batch.length >= this.options.maxBatch) break;
      batch.push(entry);
      this.pending.delete(key);
    }
    return batch;
  }

  /** A batch that could not be written goes back to the front, merged with anything newer. */
  private putBack(batch: Array<Entry<T>>): void {
    const newer = [...this.pending];
    this.pending.clear();
    for (const entry of batch) {
      const key = this.options.key?.(entry.item) ?? `#${entry.gen}`;
      this.pending.set(key, entry);
    }
    for (const [key, entry] of newer) {
      const older = this.pending.get(key);
      if (older)
        older.item = this.options.merge ? this.options.merge(older.item, entry.item) : entry.item;
      else this.pending.set(key, entry);
    }
    // An outage must not grow the buffer past its bound.
    if (this.pending.size > this.options.maxPending) {
      const excess = this.pending.size - this.options.maxPending;
      const keys = [...this.pending.keys()].slice(-excess);
      for (const key of keys) this.pending.delete(key);
      this.drop(excess, `the buffer of ${this.options.maxPending} is full`);
    }
  }

  /** Resolves the flushes that asked for nothing newer than `gen`. */
  private resolveWaiters(gen: number): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].gen <= gen) this.waiters.splice(i, 1)[0].resolve();
    }
  }

  private drop(count: number, why: string, err?: unknown): false {
    this.droppedCount += count;
    if (err !== undefined) {
      this.options.logger.warn({ err }, `${count} ${this.options.what} dropped: ${why}`);
    } else if (!this.dropLogged) {
      this.dropLogged = true;
      this.options.logger.warn(`${this.options.what} dropped: ${why} (counted from now on)`);
    }
    return false;
  }
}
