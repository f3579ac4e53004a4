import { randomUUID } from 'node:crypto';
import type { RunStatus } from '../runs/record/run-record.js';
import type { StudioCounts, StudioLoop, StudioSession, StudioSnapshot } from './studio-records.js';

/** What the store keeps, per tenant, of each kind; the oldest make room first. */
export const STUDIO_RECORDS_PER_TENANT = 500;
/** Tenants held at once; the one written least recently makes room. */
export const STUDIO_MAX_TENANTS = 100;
export const STUDIO_DEFAULT_LIMIT = 50;
export const STUDIO_MAX_LIMIT = 500;

export interface StudioCapacity {
  recordsPerTenant: number;
  maxTenants: number;
}

/** A loop as the recorder reports it; the store gives it its `id`. */
export type LoopUpdate = Omit<StudioLoop, 'id' | 'type'>;
/** A session's latest run as the recorder reports it; the store counts `runs`. */
export type SessionUpdate = Omit<StudioSession, 'type' | 'runs'>;

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

/** A queued run counts as running (it is under way); a cancelled one as denied (stopped by a person). */
const STATUS_COUNT: Record<RunStatus, keyof StudioCounts> = {
  queued: 'running_loops',
  running: 'running_loops',
  cancelled: 'denied_loops',
  paused: 'paused_loops',
  completed: 'completed_loops',
  failed: 'failed_loops',
  denied: 'denied_loops',
};

/** The newest `limit` records of every map, newest first. */
function newest<T>(maps: Array<Map<string, Entry<T>>>, limit: number): T[] {
  const entries = maps.flatMap((map) => [...map.values()].slice(-limit));
  return entries
    .sort((a, b) => b.seq - a.seq)
    .slice(0, limit)
    .map((entry) => entry.record);
}

/**
 * The studio's records (spec section 2: in memory, no database, no network), bounded: a ring of
 * sessions and one of loops per tenant, and a bounded number of tenants. Records are replaced,
 * never changed in place, so a snapshot can hand them out as they are.
 */
export class StudioStore {
  private readonly tenants = new Map<string, TenantRecords>();
  private seq = 0;

  constructor(
    private readonly capacity: StudioCapacity = {
      recordsPerTenant: STUDIO_RECORDS_PER_TENANT,
      maxTenants: STUDIO_MAX_TENANTS,
    },
  ) {}

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

  /** One tenant's records, or every tenant's when `tenantId` is undefined; newest first. */
  snapshot(tenantId: string | undefined, limit = STUDIO_DEFAULT_LIMIT): StudioSnapshot {
    const selected =
      tenantId === undefined
        ? [...this.tenants.values()]
        : [this.tenants.get(tenantId)].filter((t): t is TenantRecords => t !== undefined);
    const counts: StudioCounts = {
      sessions: 0,
      loops: 0,
      running_loops: 0,
      paused_loops: 0,
      completed_loops: 0,
      failed_loops: 0,
      denied_loops: 0,
    };
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
