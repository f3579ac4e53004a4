import { Injectable } from '@nestjs/common';
import { runScope } from '../../platform/state/state-scopes.js';
import { type JsonValue, type StateKey, StateStore } from '../../platform/state/state-store.js';
import type { RunRecord } from './run-record.js';

const RECORD = 'record';

export interface VersionedRunRecord {
  record: RunRecord;
  version: number;
}

const recordKey = (tenantId: string, runId: string): StateKey => ({
  tenantId,
  sessionId: runScope(runId),
  key: RECORD,
});

/** Run records in the state backend, one entry per (tenant, run). */
@Injectable()
export class RunRecordStore {
  constructor(private readonly store: StateStore) {}

  async get(tenantId: string, runId: string): Promise<RunRecord | null> {
    return (await this.getVersioned(tenantId, runId))?.record ?? null;
  }

  /** The record with its entry version, for a conditional write (a graph's checkpoints). */
  async getVersioned(tenantId: string, runId: string): Promise<VersionedRunRecord | null> {
    const entry = await this.store.get(recordKey(tenantId, runId));
    return entry ? { record: entry.value as unknown as RunRecord, version: entry.version } : null;
  }

  /**
   * Writes the record and returns its new version. With `expectedVersion` the write only
   * happens at that version (StateConflictError otherwise), so a stale owner cannot overwrite.
   */
  async put(record: RunRecord, expectedVersion?: number): Promise<number> {
    const entry = await this.store.put(
      recordKey(record.tenant_id, record.run_id),
      record as unknown as JsonValue,
      expectedVersion === undefined ? {} : { expectedVersion },
    );
    return entry.version;
  }
}
