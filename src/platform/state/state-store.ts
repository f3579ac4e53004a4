/** A JSON value as stored in a state entry. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface StateKey {
  tenantId: string;
  sessionId: string;
  key: string;
}

/**
 * A conditional write of a state entry, as a condition a later statement can carry: the entry
 * is at `version` and holds `json` (the same text the write sent). A statement that must take
 * effect only with the write (a run's settled event with its settled record) checks it in SQL
 * (`entryWriteCondition` in entry-write.ts): sent in the same group, both commit in one transaction; sent later, it
 * still finds the write, or finds that it failed or that another writer's value stands.
 */
export interface EntryWrite {
  key: StateKey;
  version: number;
  json: string;
}

/**
 * An EntryWrite whose statement was just asked for, with its outcome (settles once the write
 * is committed, or has failed): what must go only with it is asked for now, carrying the
 * condition, so that it joins the write's group; what cannot join it waits for `outcome`.
 */
export interface WriteInFlight {
  write: EntryWrite;
  outcome: Promise<unknown>;
}

export interface StateEntry<T extends JsonValue = JsonValue> extends StateKey {
  value: T;
  /** 1 on creation, +1 on every write. */
  version: number;
  /** Epoch milliseconds of the last write. */
  updatedAt: number;
}

export interface PutOptions {
  /**
   * Optimistic concurrency: write only if the entry is at this version (0 = must not exist yet).
   * Omitted: an unconditional upsert.
   */
  expectedVersion?: number;
  /**
   * With `expectedVersion` 0: the entry is created only while this process holds the lease of
   * that key (`run:<id>`) in the entry's tenant, a StateConflictError otherwise. A run's first
   * record: its lease's claim, asked for before it, goes in the same group (one transaction), and
   * a claim another owner won keeps the record out.
   */
  whileHolding?: string;
}

export interface RunLease {
  tenantId: string;
  runId: string;
  owner: string;
  /** Epoch milliseconds, by the database's clock. */
  expiresAt: number;
}

/** A conditional write lost: the entry changed since the writer read it. */
export class StateConflictError extends Error {
  override readonly name = 'StateConflictError';
  constructor(
    readonly key: StateKey,
    readonly expectedVersion: number,
  ) {
    super(
      `state entry ${key.tenantId}/${key.sessionId}/${key.key} is not at version ${expectedVersion}`,
    );
  }
}

/** Another process took over a lease this one held (it had expired): the work must stop. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** The backend cannot be reached or is not migrated yet: the request should get a 503. */
export class StateUnavailableError extends Error {
  override readonly name = 'StateUnavailableError';
}

/**
 * The shared state backend (spec section 1, "Replicas and state backend"). Used as the DI token;
 * one TypeORM implementation serves sqlite and PostgreSQL. Every write is an idempotent upsert
 * keyed by (tenant_id, session_id, key), immediately visible to every replica.
 */
export abstract class StateStore {
  /** This process's lease owner identity. */
  abstract readonly owner: string;

  abstract get<T extends JsonValue = JsonValue>(key: StateKey): Promise<StateEntry<T> | null>;
  /** Creates or replaces the entry; throws StateConflictError when `expectedVersion` does not hold. */
  abstract put<T extends JsonValue>(
    key: StateKey,
    value: T,
    options?: PutOptions,
  ): Promise<StateEntry<T>>;
  /**
   * `put` at `expectedVersion`, with the write as a condition for statements that must take
   * effect only with it (EntryWrite). The statement is on its way when this returns, so one
   * asked for next goes after it (in the same group when asked for before the I/O round ends).
   * With `onlyIf` (over an existing entry, `expectedVersion` ≥ 1) it writes only if that other
   * write holds too, a StateConflictError otherwise: asked for right after that write, both
   * commit in one transaction or neither does. A key out of bounds, or a value JSON cannot
   * write, throws at once rather than rejecting.
   */
  abstract putAt<T extends JsonValue>(
    key: StateKey,
    value: T,
    expectedVersion: number,
    onlyIf?: EntryWrite,
  ): { entry: Promise<StateEntry<T>>; write: EntryWrite };
  /** True when an entry was removed. */
  abstract delete(key: StateKey): Promise<boolean>;
  /** The keys of one session, sorted. */
  abstract listKeys(tenantId: string, sessionId: string): Promise<string[]>;

  /**
   * Claims the run for this process in one atomic statement: inserts a lease, takes over one that
   * has expired, or renews one this owner already holds. Null while another owner holds it.
   */
  abstract claimRunLease(tenantId: string, runId: string, ttlMs: number): Promise<RunLease | null>;
  /** Extends a lease this owner holds; false if it was lost (taken over after expiring). */
  abstract renewRunLease(tenantId: string, runId: string, ttlMs: number): Promise<boolean>;
  /**
   * Gives the lease up so the next claim wins at once; false if this owner did not hold it. With
   * `onlyIf`, only if that write holds (a run's lease goes with its settled record, in the
   * record's transaction: see EntryWrite).
   */
  abstract releaseRunLease(tenantId: string, runId: string, onlyIf?: EntryWrite): Promise<boolean>;
  /**
   * Expires a lease this owner holds without deleting it: the next claim wins at once, and a
   * sweep for expired run leases finds it (an unfinished run handed over to another replica).
   */
  abstract expireRunLease(tenantId: string, runId: string): Promise<boolean>;
  /**
   * Gives up every lease this process holds (graceful shutdown). Run leases (`run:` keys) are
   * expired rather than deleted, so another replica can find the unfinished runs and take them
   * over. Returns how many.
   */
  abstract releaseAllLeases(): Promise<number>;
  /** Expired run leases (`run:` keys), oldest first: runs whose owner stopped renewing. */
  abstract listExpiredRunLeases(limit: number): Promise<Array<{ tenantId: string; key: string }>>;
}
