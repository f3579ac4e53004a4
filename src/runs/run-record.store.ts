import { Injectable } from '@nestjs/common';
import { runScope } from '../state/state-scopes.js';
import { type JsonValue, StateStore } from '../state/state-store.js';
import type { RunRecord } from './run-record.js';

const RECORD = 'record';

/** Run records in the state backend, one entry per (tenant, run). */
@Injectable()
export class RunRecordStore {
  constructor(private readonly store: StateStore) {}

  async get(tenantId: string, runId: string): Promise<RunRecord | null> {
    const entry = await this.store.get({ tenantId, sessionId: runScope(runId), key: RECORD });
    return entry ? (entry.value as unknown as RunRecord) : null;
  }

  async put(record: RunRecord): Promise<void> {
    await this.store.put(
      { tenantId: record.tenant_id, sessionId: runScope(record.run_id), key: RECORD },
      record as unknown as JsonValue,
    );
  }
}
