import { randomUUID } from 'node:crypto';
import { STATUS_COUNT, emptyCounts } from './studio-counts.js';
import type { StudioLoop, StudioSession, StudioSnapshot } from './studio-records.js';
import {
  type LoopUpdate,
  STUDIO_DEFAULT_LIMIT,
  STUDIO_RECORDS_PER_TENANT,
  type SessionUpdate,
  StudioStore,
} from './studio.store.js';

/** Tenants held at once; the one written least recently makes room. */
export const STUDIO_MAX_TENANTS = 100;

export interface StudioCapacity {
  recordsPerTenant: number;
  maxTenants: number;
}

/** A record with the sequence number of its last write (newest first = highest first). */
interface Entry<T> {
  seq: number;
  record: T;
}

/** One tenant's records; each Map iterates oldest write first. */
class TenantRecords {
  readonly sessions = new Map<string, Entry<StudioSession>>();
  /** Keyed by run id: a run resumed here (after approval) is the same loop again. */
  readonly loops = new Map<string, Entry<StudioLoop>>();

  hasRunningLoop(): boolean {
    for (const { record } of this.loops.values()) if (record.status === 'running') return true;
    return false;
  }
}

/** The newest `limit` records of every map, newest first. */
function newest<T>(maps: Array<Map<string, Entry<T>>>, limit: number): T[] {
  const entries = maps.flatMap((map) => [...map.values()].slice(-limit));
  return entries
    .sort((a, b) => b.seq - a.seq)
    .slice(0, limit)
    .map((entry) => entry.record);
}

/**
 * The studio's records in this process (spec section 2: in memory, no database, no network),
 * bounded: a ring of sessions and one of loops per tenant, and a bounded number of tenants.
 * Records are replaced, never changed in place, so a snapshot can hand them out as they are.
 */
export class MemoryStudioStore extends StudioStore {
  private readonly tenants = new Map<string, TenantRecords>();
  private seq = 0;

  constructor(
    private readonly capacity: StudioCapacity = {
      recordsPerTenant: STUDIO_RECORDS_PER_TENANT,
      maxTenants: STUDIO_MAX_TENANTS,
    },
  ) {
    super();
  }

  /** Creates or replaces the loop of `update.run_id`; a loop keeps its place and its id. */
  putLoop(update: LoopUpdate): void {
    const { loops } = this.tenant(update.tenant_id);
    const existing = loops.get(update.run_id);
    if (existing) {
      existing.record = { ...existing.record, ...update };
      return;
    }
    loops.set(update.run_id, {
      seq: ++this.seq,
      record: { id: randomUUID(), type: 'loop', ...update },
    });
    if (loops.size > this.capacity.recordsPerTenant) this.evictLoop(loops);
  }

  /** This replica's loop of the run ends here, failed: running_loops must not count it forever. */
  loopStoppedHere(update: LoopUpdate): void {
    this.putLoop(update);
  }

  /** Records the latest run of a session: the session becomes the newest. */
  putSession(update: SessionUpdate): void {
    const { sessions } = this.tenant(update.tenant_id);
    const runs = (sessions.get(update.id)?.record.runs ?? 0) + 1;
    sessions.delete(update.id);
    const { id, ...fields } = update;
    sessions.set(id, { seq: ++this.seq, record: { id, type: 'session', ...fields, runs } });
    if (sessions.size > this.capacity.recordsPerTenant) {
      sessions.delete(sessions.keys().next().value as string);
    }
  }

  snapshot(tenantId: string | undefined, limit = STUDIO_DEFAULT_LIMIT): Promise<StudioSnapshot> {
    return Promise.resolve(this.read(tenantId, limit));
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  private read(tenantId: string | undefined, limit: number): StudioSnapshot {
    const selected =
      tenantId === undefined
        ? [...this.tenants.values()]
        : [this.tenants.get(tenantId)].filter((t): t is TenantRecords => t !== undefined);
    const counts = emptyCounts();
    for (const tenant of selected) {
      counts.sessions += tenant.sessions.size;
      counts.loops += tenant.loops.size;
      for (const { record } of tenant.loops.values()) counts[STATUS_COUNT[record.status]] += 1;
    }
    return {
      sessions: newest(
        selected.map((tenant) => tenant.sessions),
        limit,
      ),
      loops: newest(
        selected.map((tenant) => tenant.loops),
        limit,
      ),
      counts,
    };
  }

  /** The tenant's records, now the most recently written; makes room for a new tenant. */
  private tenant(tenantId: string): TenantRecords {
    let records = this.tenants.get(tenantId);
    if (records) {
      this.tenants.delete(tenantId);
    } else {
      records = new TenantRecords();
      if (this.tenants.size >= this.capacity.maxTenants) this.evictTenant();
    }
    this.tenants.set(tenantId, records);
    return records;
  }

  /** The least recently written tenant with nothing running (else the least recent). */
  private evictTenant(): void {
    let victim: string | undefined;
    for (const [tenantId, records] of this.tenants) {
      victim ??= tenantId;
      if (!records.hasRunningLoop()) {
        victim = tenantId;
        break;
      }
    }
    if (victim !== undefined) this.tenants.delete(victim);
  }

  /** The oldest loop that is not running (else the oldest): running_loops stays true. */
  private evictLoop(loops: Map<string, Entry<StudioLoop>>): void {
    let victim: string | undefined;
    for (const [runId, { record }] of loops) {
      victim ??= runId;
      if (record.status !== 'running') {
        victim = runId;
        break;
      }
    }
    if (victim !== undefined) loops.delete(victim);
  }
}
