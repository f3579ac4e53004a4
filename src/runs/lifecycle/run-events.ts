import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { WriteInFlight } from '../../platform/state/state-store.js';
import type { RunMarks, RunRecord } from '../record/run-record.js';

/**
 * Something that follows runs as they happen in this process (the studio, metrics). Called
 * synchronously with the run's record and its marks (where it comes from, whether it has a
 * webhook), which it must not change; what it throws is logged and dropped, so observing can
 * never change or fail a run.
 */
export interface RunObserver {
  /** A new run was recorded `queued`: it waits here for its session, busy with another run. */
  runQueued?(record: Readonly<RunRecord>, marks: Readonly<RunMarks>): void;
  /** A run started here, or this process took over (or resumed after a decision) a graph run. */
  runStarted?(record: Readonly<RunRecord>, marks: Readonly<RunMarks>): void;
  /** The run moved on: a turn or a step finished. */
  runProgressed?(record: Readonly<RunRecord>, marks: Readonly<RunMarks>): void;
  /**
   * The run's settled record was just asked for (`onlyIf`): what the observer writes of the
   * settled run goes only with that write (in its transaction, see WriteInFlight). Called
   * before `runSettled`, whether or not the write then holds.
   */
  runSettling?(record: Readonly<RunRecord>, marks: Readonly<RunMarks>, onlyIf: WriteInFlight): void;
  /**
   * The run stopped here: `completed`, `failed`, `denied`, or `paused` for a decision (its
   * settled record written), or unfinished (`RUN_STOPPED_HERE`, nothing written).
   */
  runSettled?(record: Readonly<RunRecord>, marks: Readonly<RunMarks>): void;
  /**
   * Resolves once what the observer was told so far is recorded where every replica reads it
   * (an observer that writes in the background); bounded, and never rejects the run.
   */
  flush?(): Promise<void>;
}

/** The run lifecycle of this process, for observers. */
@Injectable()
export class RunEvents {
  private readonly logger = new Logger(RunEvents.name);
  private readonly observers = new Set<RunObserver>();

  /** Returns the unsubscribe function. */
  subscribe(observer: RunObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  queued(record: RunRecord, marks: RunMarks = {}): void {
    this.emit('runQueued', (observer) => observer.runQueued?.(record, marks));
  }

  started(record: RunRecord, marks: RunMarks = {}): void {
    this.emit('runStarted', (observer) => observer.runStarted?.(record, marks));
  }

  progressed(record: RunRecord, marks: RunMarks = {}): void {
    this.emit('runProgressed', (observer) => observer.runProgressed?.(record, marks));
  }

  settling(record: RunRecord, marks: RunMarks, onlyIf: WriteInFlight): void {
    this.emit('runSettling', (observer) => observer.runSettling?.(record, marks, onlyIf));
  }

  settled(record: RunRecord, marks: RunMarks = {}): void {
    this.emit('runSettled', (observer) => observer.runSettled?.(record, marks));
  }

  /** Waits for every observer's flush; what one throws is logged and dropped. */
  async flush(): Promise<void> {
    const flushes: Array<Promise<void>> = [];
    for (const observer of this.observers) {
      if (!observer.flush) continue;
      flushes.push(
        Promise.resolve()
          .then(() => observer.flush?.())
          .catch((error: unknown) =>
            this.logger.warn({ err: error }, 'a run observer failed to flush'),
          ),
      );
    }
    await Promise.all(flushes);
  }

  private emit(event: Exclude<keyof RunObserver, 'flush'>, tell: (observer: RunObserver) => void) {
    for (const observer of this.observers) {
      try {
        tell(observer);
      } catch (error) {
        this.logger.warn(`a run observer failed on ${event}: ${String(error)}`);
      }
    }
  }
}

/**
 * A RunObserver that follows this process's runs for as long as its module lives: subscribed
 * to RunEvents on Nest's init hook, unsubscribed on its destroy hook.
 */
export abstract class SubscribedRunObserver implements OnModuleInit, OnModuleDestroy {
  private unsubscribe?: () => void;

  constructor(protected readonly events: RunEvents) {}

  onModuleInit(): void {
    // What it observes are the RunObserver methods its subclass has.
    this.unsubscribe = this.events.subscribe(this as RunObserver);
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }
}
