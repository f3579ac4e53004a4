import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { LinkedAbort } from '../../platform/signals/linked-abort.js';
import { ACTIVE_STATUSES, type StoredRun } from '../record/run-record.js';
import { RunRecordStore } from '../record/run-record.store.js';
import { RunEvents } from './run-events.js';

/** Between two reads of a run another replica executes: quick at first, then once a second. */
const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 1000;

/**
 * Long-polls a run's record until it is no longer queued or running (settled, or paused for a
 * decision) or the wait ends. A run this replica executes wakes its waiters when it settles
 * (RunEvents); one another replica executes is read again with backoff up to once a second.
 */
@Injectable()
export class RunWaiter implements OnModuleDestroy {
  private readonly wakers = new Map<string, Set<() => void>>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly records: RunRecordStore,
    events: RunEvents,
  ) {
    this.unsubscribe = events.subscribe({
      runSettled: (record) => {
        for (const wake of this.wakers.get(key(record.tenant_id, record.run_id)) ?? []) wake();
      },
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }

  /** The run as it stands when it stopped running or `waitMs` passed; null when there is none. */
  async settledOrCurrent(
    tenantId: string,
    runId: string,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<StoredRun | null> {
    const deadline = Date.now() + waitMs;
    let pause = FIRST_POLL_MS;
    for (;;) {
      const run = await this.records.get(tenantId, runId);
      const left = deadline - Date.now();
      if (!run || !ACTIVE_STATUSES.has(run.status) || left <= 0 || signal?.aborted) return run;
      await this.nap(key(tenantId, runId), Math.min(pause, left), signal);
      pause = Math.min(pause * 2, MAX_POLL_MS);
    }
  }

  /** Sleeps `ms`, or less when the run settles here or the caller goes away. */
  private async nap(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    const woken = new LinkedAbort(signal ? [signal] : []);
    const wake = () => woken.abort();
    const waiting = this.wakers.get(id) ?? new Set();
    waiting.add(wake);
    this.wakers.set(id, waiting);
    try {
      await sleep(ms, undefined, { signal: woken.signal }).catch(() => undefined);
    } finally {
      woken.unlink();
      waiting.delete(wake);
      if (waiting.size === 0) this.wakers.delete(id);
    }
  }
}

const key = (tenantId: string, runId: string) => JSON.stringify([tenantId, runId]);
