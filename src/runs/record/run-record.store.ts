import { Injectable } from '@nestjs/common';
import { runScope } from '../../platform/state/state-scopes.js';
import {
  type EntryWrite,
  type JsonValue,
  StateConflictError,
  type StateKey,
  StateStore,
} from '../../platform/state/state-store.js';
import type { StoredRun } from './run-record.js';
import { readStoredRun } from './run-record.mapper.js';

const RECORD = 'record';
/** A cancellation asked for: kept beside the record, read by whoever executes the run next. */
const CANCEL = 'cancel';

/**
 * A run's first record was not written: the run has a record already, or another process's
 * claim of its lease won. Nothing of the run was done here; it is asked for again the way a
 * recorded run is (AgentRunner).
 */
export class RunIdTaken extends Error {
  override readonly name = 'RunIdTaken';
  constructor(runId: string) {
    super(`run ${JSON.stringify(runId)} was recorded or claimed by another request first`);
  }
}

/** Who asked for a run's cancellation, and when. */
export interface CancelRequest {
  by: string | null;
  at: string;
}

export interface VersionedRun {
  run: StoredRun;
  version: number;
}

const versionOf = (entry: { version: number }) => entry.version;

const recordKey = (tenantId: string, runId: string): StateKey => ({
  tenantId,
  sessionId: runScope(runId),
  key: RECORD,
});

/** Run records in the state backend, one entry per (tenant, run), read in any stored format. */
@Injectable()
export class RunRecordStore {
  constructor(private readonly store: StateStore) {}

  async get(tenantId: string, runId: string): Promise<StoredRun | null> {
    return (await this.getVersioned(tenantId, runId))?.run ?? null;
  }

  /** The run with its entry version, for a conditional write (every checkpoint is one). */
  async getVersioned(tenantId: string, runId: string): Promise<VersionedRun | null> {
    const entry = await this.store.get(recordKey(tenantId, runId));
    return entry ? { run: readStoredRun(entry.value), version: entry.version } : null;
  }

  /** Records that the run is to be cancelled (the first request is kept). */
  async requestCancel(tenantId: string, runId: string, by: string | null): Promise<void> {
    const request: CancelRequest = { by, at: new Date().toISOString() };
    await this.store
      .put({ tenantId, sessionId: runScope(runId), key: CANCEL }, request as unknown as JsonValue, {
        expectedVersion: 0,
      })
      .catch((error: unknown) => {
        if (!(error instanceof StateConflictError)) throw error;
      });
  }

  /** The run's cancellation request, when one was made. */
  async cancelRequest(tenantId: string, runId: string): Promise<CancelRequest | null> {
    const entry = await this.store.get({ tenantId, sessionId: runScope(runId), key: CANCEL });
    return entry ? (entry.value as unknown as CancelRequest) : null;
  }

  /**
   * Writes a run's first record (version 1), only while this process holds the run's lease: its
   * claim, when asked for just before (RunLeases.claimNew), goes in the same transaction.
   * RunIdTaken when the run has a record already or another owner holds the lease. The
   * statement is sent before this returns.
   */
  async create(run: StoredRun): Promise<number> {
    const key = recordKey(run.tenant_id, run.run_id);
    try {
      const entry = await this.store.put(key, run as unknown as JsonValue, {
        expectedVersion: 0,
        whileHolding: key.sessionId,
      });
      return entry.version;
    } catch (error) {
      throw error instanceof StateConflictError ? new RunIdTaken(run.run_id) : error;
    }
  }

  /**
   * Writes the run and returns its new version. With `expectedVersion` the write only happens
   * at that version (0: the run must not exist yet; StateConflictError otherwise), so a process
   * that lost the run can never overwrite its new owner's checkpoint.
   */
  async put(run: StoredRun, expectedVersion?: number): Promise<number> {
    const entry = await this.store.put(
      recordKey(run.tenant_id, run.run_id),
      run as unknown as JsonValue,
      expectedVersion === undefined ? {} : { expectedVersion },
    );
    return entry.version;
  }

  /**
   * `put` at `expectedVersion` that hands `alongside` the write (and its outcome) as its
   * statement goes out, for what must be written only with it (the run's settled event; see
   * EntryWrite). With `onlyIf`, written only if that write holds too (StateStore.putAt). Like
   * putAt, a run JSON cannot write throws at once.
   */
  putWith(
    run: StoredRun,
    expectedVersion: number,
    alongside: (write: EntryWrite, entry: Promise<unknown>) => void,
    onlyIf?: EntryWrite,
  ): Promise<number> {
    const { entry, write } = this.store.putAt(
      recordKey(run.tenant_id, run.run_id),
      run as unknown as JsonValue,
      expectedVersion,
      onlyIf,
    );
    alongside(write, entry);
    return entry.then(versionOf);
  }
}
