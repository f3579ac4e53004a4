import { Logger } from '@nestjs/common';
import { BackgroundWriter } from '../platform/state/background-writer.js';
import type { StateDatabase } from '../platform/state/state-database.service.js';
import type { WriteInFlight } from '../platform/state/state-store.js';
import type { Metrics } from '../platform/telemetry/metrics.service.js';
import type { StudioSnapshot } from './studio-records.js';
import type { StudioTables, StudioWrite } from './studio-tables.js';
import {
  type LoopUpdate,
  STUDIO_DEFAULT_LIMIT,
  type SessionUpdate,
  StudioStore,
} from './studio.store.js';

/** Rows one upsert writes at most (8 parameters each). */
const MAX_BATCH = 200;
/** Loops and sessions waiting at most while the backend is away; beyond, updates are dropped. */
const MAX_PENDING = 20_000;
/** How long an update waits for others: a busy run reports a turn every few ms. */
const GATHER_MS = 20;

const keyOf = (write: StudioWrite): string =>
  write.kind === 'loop'
    ? `l\u0000${write.update.tenant_id}\u0000${write.update.run_id}`
    : `s\u0000${write.update.tenant_id}\u0000${write.update.id}`;

/** A newer update of the same loop or session replaces the waiting one; session runs add up. */
function merge(older: StudioWrite, newer: StudioWrite): StudioWrite {
  if (older.kind === 'session' && newer.kind === 'session') {
    return { ...newer, runs: older.runs + newer.runs };
  }
  return newer;
}

/**
 * The studio in the state backend: every replica writes the loops of the runs it executes and
 * the sessions they end, and every replica's snapshot reads the same tables, so a run paused on
 * one replica and approved on another shows as one loop, completed, everywhere. Updates go
 * through a BackgroundWriter (a run's many updates in a moment become one upsert, off the run's
 * path); the run lifecycle flushes it before a run answers, so the next replica to touch the
 * run writes after it. A read flushes first, so a client sees what it just caused.
 */
export class StateStudioStore extends StudioStore {
  private readonly writer: BackgroundWriter<StudioWrite>;

  constructor(
    private readonly tables: StudioTables,
    database: StateDatabase,
    metrics?: Metrics,
  ) {
    super();
    this.writer = new BackgroundWriter({
      what: 'studio updates',
      write: (batch) => tables.write(batch),
      logger: new Logger('Studio'),
      maxBatch: MAX_BATCH,
      maxPending: MAX_PENDING,
      gatherMs: GATHER_MS,
      key: keyOf,
      merge,
      bind: (write, onlyIf) => ({ ...write, onlyIf }),
    });
    database.beforeClose(() => this.writer.close());
    metrics?.observeCounter(
      'svc_studio_updates_dropped',
      'Studio updates this process could not write to the state backend',
      () => this.writer.dropped,
    );
  }

  putLoop(update: LoopUpdate): void {
    this.writer.add({ kind: 'loop', update, updatedMs: Date.now() });
  }

  /**
   * Nothing to write: the run is not over, it goes on from its checkpoint where its lease is
   * taken next, and that replica writes its loop. Until then the loop says what the run last was.
   */
  loopStoppedHere(): void {}

  putSession(update: SessionUpdate): void {
    this.writer.add({ kind: 'session', update, runs: 1 });
  }

  override putSettled(
    loop: LoopUpdate,
    session: SessionUpdate | undefined,
    onlyIf: WriteInFlight,
  ): void {
    const writes: StudioWrite[] = [{ kind: 'loop', update: loop, updatedMs: Date.now() }];
    if (session) writes.push({ kind: 'session', update: session, runs: 1 });
    this.writer.addWith(writes, onlyIf);
  }

  async snapshot(
    tenantId: string | undefined,
    limit = STUDIO_DEFAULT_LIMIT,
  ): Promise<StudioSnapshot> {
    await this.writer.flush();
    return this.tables.snapshot(tenantId, limit);
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }
}
