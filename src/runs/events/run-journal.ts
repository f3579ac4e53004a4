import type { Logger } from '@nestjs/common';
import { AmbientSlot } from '../../platform/context/ambient-slot.js';
import type { NewRunEvent, RunEvent, RunEventData, RunEventType } from './run-event.js';
import { MAX_APPEND_BATCH } from './run-event.store.js';

/** Where a journal's events go: written in order, answered numbered. */
export type AppendEvents = (events: NewRunEvent[]) => Promise<RunEvent[]>;

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
 * settled event by the time anyone can read the result. The journal of the code running now
 * is `RunJournal.current()` (the run lifecycle sets it for the whole execution), so the loop,
 * a step and a provider's deltas reach the log without being handed it.
 */
export class RunJournal {
  private queue: NewRunEvent[] = [];
  private draining: Promise<void> | null = null;
  /** Ends the wait of the drain that gathers a batch (starts writing now). */
  private gathering: { start: () => void } | null = null;
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

  emit(type: RunEventType, data: RunEventData): void {
    if (type === 'model.delta' && !this.wantsDeltas) return;
    const step = current.get()?.step;
    this.queue.push({ type, at: Date.now(), data: step === undefined ? data : { step, ...data } });
    if (type === 'model.delta') this.gathering?.start();
    if (this.draining) return;
    this.draining = this.drain(type === 'model.delta' ? 0 : GATHER_MS);
  }

  /** Resolves once every event emitted so far is written (or given up). */
  async flush(): Promise<void> {
    this.gathering?.start();
    while (this.draining) await this.draining;
  }

  private async drain(gatherMs: number): Promise<void> {
    // Let the burst that started the drain join the first batch.
    await new Promise<void>((resolve) => {
      const start = () => {
        clearTimeout(timer);
        this.gathering = null;
        setImmediate(resolve);
      };
      const timer = setTimeout(start, gatherMs);
      this.gathering = { start };
    });
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_APPEND_BATCH);
        await this.write(batch);
      }
    } finally {
      this.draining = null;
    }
  }

  private async write(batch: NewRunEvent[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const written = await this.append(batch);
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
