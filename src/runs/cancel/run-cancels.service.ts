import { Injectable, Logger, NotFoundException, type OnModuleInit } from '@nestjs/common';
import { StateNotifications } from '../../platform/state/state-notifications.js';
import { StateConflictError } from '../../platform/state/state-store.js';
import { RunLeases } from '../lifecycle/run-lease.js';
import { RunLifecycle } from '../lifecycle/run-lifecycle.js';
import { RunWaiter } from '../lifecycle/run-waiter.js';
import { type StoredRun, TERMINAL_STATUSES } from '../record/run-record.js';
import { RunRecordStore } from '../record/run-record.store.js';
import { ProblemException } from '../../platform/http/problem.js';

/** The channel that tells the replica executing a run to stop it: `[tenant, run, by]`. */
export const RUN_CANCEL_CHANNEL = 'svc_run_cancel';

/** How long a cancel request waits for the run to settle before answering 202. */
const SETTLE_WAIT_MS = 10_000;

/** The outcome of a cancel request. */
export interface CancelOutcome {
  run: StoredRun;
  /** False while the executing replica is still stopping the run. */
  settled: boolean;
}

/**
 * Cancellation of runs (POST /v1/runs/{id}/cancel), on whichever replica holds them. The request
 * is recorded beside the run first (so whoever executes the run next settles it cancelled
 * instead of going on, even after a takeover), then: a run this process executes is stopped at
 * once (its signal aborts in-flight model and tool calls); one nobody executes (queued, paused,
 * or whose owner died) is claimed and settled here; one another replica executes is told over
 * the state backend's notifications, and the answer waits (bounded) for it to settle.
 */
@Injectable()
export class RunCancels implements OnModuleInit {
  private readonly logger = new Logger(RunCancels.name);

  constructor(
    private readonly records: RunRecordStore,
    private readonly leases: RunLeases,
    private readonly lifecycle: RunLifecycle,
    private readonly waiter: RunWaiter,
    private readonly notifications: StateNotifications,
  ) {}

  onModuleInit(): void {
    this.notifications.listen(RUN_CANCEL_CHANNEL, (payload) => this.heard(payload));
    // A notification missed while the listening connection was down: look again.
    this.notifications.onReconnect(() => void this.recheckHeld());
  }

  async cancel(tenantId: string, runId: string, by: string | null): Promise<CancelOutcome> {
    const run = await this.records.get(tenantId, runId);
    if (!run) throw new NotFoundException(`no run ${JSON.stringify(runId)} for this tenant`);
    if (run.status === 'cancelled') return { run, settled: true };
    if (TERMINAL_STATUSES.has(run.status)) {
      throw new ProblemException(
        409,
        `run ${JSON.stringify(runId)} already ended ${run.status}; only a queued, running or paused run can be cancelled`,
        'run-settled',
      );
    }
    await this.records.requestCancel(tenantId, runId, by);
    await this.lifecycle.note(run, 'run.cancel_requested', { by });
    const here = this.leases.heldFor(tenantId, runId);
    if (here) {
      here.cancel(by);
    } else {
      const lease = await this.leases.claim(tenantId, runId);
      if (lease) {
        // Nobody executes it (queued, paused, or its owner is gone): it is settled here.
        try {
          const settled = await this.settle(tenantId, runId, by);
          if (settled) return { run: settled, settled: true };
        } finally {
          await lease.finish();
        }
      } else {
        await this.notifications.notify(RUN_CANCEL_CHANNEL, JSON.stringify([tenantId, runId, by]));
      }
    }
    const current = (await this.waiter.settledOrCurrent(tenantId, runId, SETTLE_WAIT_MS)) ?? run;
    if (TERMINAL_STATUSES.has(current.status) && current.status !== 'cancelled') {
      throw new ProblemException(
        409,
        `run ${JSON.stringify(runId)} ended ${current.status} before its cancellation took effect`,
        'run-settled',
      );
    }
    return { run: current, settled: current.status === 'cancelled' };
  }

  /**
   * Settles the run `cancelled` under its lease (the caller holds it). Answers the run as it
   * ends (a run that already settled stays as it is), or null when it has no record.
   */
  async settle(tenantId: string, runId: string, by: string | null): Promise<StoredRun | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.settleOnce(tenantId, runId, by);
      } catch (error) {
        // A checkpoint the stopped execution was still writing: read it and settle again.
        if (!(error instanceof StateConflictError) || attempt >= 3) throw error;
      }
    }
  }

  private async settleOnce(
    tenantId: string,
    runId: string,
    by: string | null,
  ): Promise<StoredRun | null> {
    const stored = await this.records.getVersioned(tenantId, runId);
    if (!stored) return null;
    if (TERMINAL_STATUSES.has(stored.run.status)) return stored.run;
    const { loop, ...rest } = stored.run;
    const cancelled: StoredRun = {
      ...rest,
      status: 'cancelled',
      ended_at: new Date().toISOString(),
      ...(rest.graph
        ? {
            paused: false,
            pending_node: null,
            graph: {
              ...rest.graph,
              pending: [],
              steps: rest.graph.steps.map((step) =>
                step.status === 'completed' || step.status === 'failed' || step.status === 'denied'
                  ? step
                  : { ...step, status: 'skipped' as const },
              ),
            },
          }
        : {}),
    };
    await this.lifecycle.settleHere(cancelled, stored.version, by ?? undefined);
    return cancelled;
  }

  /** The cancellation a run has been asked for, if any (checked before a run goes on). */
  async requested(tenantId: string, runId: string): Promise<{ by: string | null } | null> {
    return this.records.cancelRequest(tenantId, runId);
  }

  private heard(payload: string): void {
    let note: unknown;
    try {
      note = JSON.parse(payload);
    } catch {
      return;
    }
    if (!Array.isArray(note) || note.length !== 3) return;
    const [tenantId, runId, by] = note as [string, string, string | null];
    this.leases.heldFor(tenantId, runId)?.cancel(by);
  }

  private async recheckHeld(): Promise<void> {
    for (const lease of this.leases.allHeld()) {
      try {
        const request = await this.records.cancelRequest(lease.tenantId, lease.runId);
        if (request) lease.cancel(request.by);
      } catch (error) {
        this.logger.warn(`checking run ${lease.runId} for a cancellation failed: ${String(error)}`);
      }
    }
  }
}
