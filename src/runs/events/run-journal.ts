import type { Logger } from '@nestjs/common';
import { AmbientSlot } from '../../platform/context/ambient-slot.js';
import type { EntryWrite, WriteInFlight } from '../../platform/state/state-store.js';
import type { NewRunEvent, RunEvent, RunEventData, RunEventType } from './run-event.js';
import { MAX_APPEND_BATCH } from './run-event.store.js';

/**
 * Where a journal's events go: written in order, answered numbered. With `onlyIf`, written only
 * if that write holds (answered empty when it does not).
 */
export type AppendEvents = (events: NewRunEvent[], onlyIf?: EntryWrite) => Promise<RunEvent[]>;

export interface JournalOptions {
  /** Past this many events in the run's log, deltas are no longer written (the rest are). */
  maxEvents: number;
  /** Whether the run streams model deltas (a streamed or background run). */
  deltas: boolean;
  logger: Logger;
}

/**
 * How long an event other than a delta may wait for others to share its statement: a run's
 * lifecycle and tool events come in bursts a few ms apart, and a watcher does not notice a
 * tenth of a second. Deltas go at once (time to first token) and take what waits with them, and
 * a run's end flushes at once. At 20 ms a run with a tool call that took 90 ms wrote its events
 * in 3.5 statements on average; at 100 ms in one or two (issue 18).
 */
const GATHER_MS = 100;

/** Attempts of one batch before its events are given up (the state backend is away). */
const WRITE_ATTEMPTS = 4;
const RETRY_DELAY_MS = 250;

interface Scope {
  journal: RunJournal;
  /** The graph step the code runs for, when it does. */
  step?: string;
}

const current = new AmbientSlot<Scope>('svc.run.journal');

/**
 * The event log writer of one execution of a run on this replica. `emit` never blocks the run
 * and never throws: events queue and are written in batches, one statement at a time and in
 * order, so a burst of deltas costs one statement, not one per token. `flush` waits for what
 * was emitted so far; a run's settling flushes before it answers, so its log ends with the
 * settled event by the time anyone can read the result.
 *
 * An event that belongs to a write (`emit`'s `onlyIf`: the settled event, to the settled
 * record) is written only if that write holds, and is asked for at once, so that it joins the
 * write's group and both commit in one transaction. The events queued before it go with it,
 * and on their own if the write failed.
 *
 * The journal of the code running now is `RunJournal.current()` (the run lifecycle sets it for
 * the whole execution), so the loop, a step and a provider's deltas reach the log without being
 * handed it.
 */
export class RunJournal {
  private queue: NewRunEvent[] = [];
  /** The queued events that belong to a write (each ends its batch). */
  private readonly conditions = new Map<NewRunEvent, WriteInFlight>();
  private draining: Promise<void> | null = null;
  /**
   * Ends the wait of the drain that gathers a batch: it starts writing after this round of I/O,
   * or `now` (in this turn, before the statements asked for in it go out).
   */
  private gathering: { start: (now?: boolean) => void } | null = null;
  private lastId = 0;

  constructor(
    readonly tenantId: string,
    readonly runId: string,
    private readonly append: AppendEvents,
    private readonly options: JournalOptions,
  ) {}

  static current(): RunJournal | undefined {
    return current.get()?.journal;
  }

  /** Runs `work` with this journal as the current one. */
  within<T>(work: () => T): T {
    return current.run({ journal: this }, work);
  }

  /** Runs `work` as graph step `step`: its events carry the step. */
  static inStep<T>(step: string, work: () => T): T {
    const scope = current.get();
    return scope ? current.run({ ...scope, step }, work) : work();
  }

  /** Whether model deltas are wanted for this run. */
  get wantsDeltas(): boolean {
    return this.options.deltas && this.lastId < this.options.maxEvents;
  }

  /** Queues an event; with `onlyIf`, one that belongs to that write (see the class). */
  emit(type: RunEventType, data: RunEventData, onlyIf?: WriteInFlight): void {
    if (type === 'model.delta' && !this.wantsDeltas) return;
    const step = current.get()?.step;
    const event = { type, at: Date.now(), data: step === undefined ? data : { step, ...data } };
    this.queue.push(event);
    if (onlyIf) {
      this.conditions.set(event, onlyIf);
      this.gathering?.start(true);
    } else if (type === 'model.delta') this.gathering?.start();
    if (this.draining) return;
    this.draining = this.drain(onlyIf ? null : type === 'model.delta' ? 0 : GATHER_MS);
  }

  /** Resolves once every event emitted so far is written (or given up). */
  async flush(): Promise<void> {
    this.gathering?.start();
    while (this.draining) await this.draining;
  }

  /** `gatherMs` null: no wait, the first batch is asked for before this returns. */
  private async drain(gatherMs: number | null): Promise<void> {
    // Let the burst that started the drain join the first batch.
    if (gatherMs !== null) {
      await new Promise<void>((resolve) => {
        const start = (now?: boolean) => {
          clearTimeout(timer);
          this.gathering = null;
          if (now) resolve();
          else setImmediate(resolve);
        };
        const timer = setTimeout(start, gatherMs);
        this.gathering = { start };
      });
    }
    try {
      while (this.queue.length > 0) await this.writeNext();
    } finally {
      this.draining = null;
    }
  }

  /** The next batch: up to the bound, ending at the first event that belongs to a write. */
  private writeNext(): Promise<void> {
    let size = Math.min(this.queue.length, MAX_APPEND_BATCH);
    let onlyIf: WriteInFlight | undefined;
    for (let i = 0; i < size; i++) {
      onlyIf = this.conditions.get(this.queue[i]);
      if (!onlyIf) continue;
      this.conditions.delete(this.queue[i]);
      size = i + 1;
      break;
    }
    return this.write(this.queue.splice(0, size), onlyIf);
  }

  private async write(batch: NewRunEvent[], onlyIf?: WriteInFlight): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        let written = await this.append(batch, onlyIf?.write);
        if (onlyIf && written.length === 0) {
          // Sent after the write's own group (a batch was being written when it came), this
          // may have run before that group committed, on another connection: asked again once
          // the write is done. Still not holding, the write failed or another owner's stands:
          // the event is not part of the run's log; the events before it are.
          const done = await onlyIf.outcome.then(
            () => true,
            () => false,
          );
          if (done) written = await this.append(batch, onlyIf.write);
          if (written.length === 0) {
            batch = batch.slice(0, -1);
            onlyIf = undefined;
            written = batch.length > 0 ? await this.append(batch) : [];
          }
        }
        this.lastId = written.at(-1)?.id ?? this.lastId;
        return;
      } catch (error) {
        if (attempt >= WRITE_ATTEMPTS) {
          this.options.logger.warn(
            { err: error, run_id: this.runId },
            `${batch.length} run events could not be written; the run's stream misses them`,
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * attempt));
      }
    }
  }
}
