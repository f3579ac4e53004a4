import { Injectable, Optional } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { QueryResult, Repository } from 'typeorm';
import { StateEntryEntity } from './entities/state-entry.entity.js';
import { entryWriteCondition, entryWriteValues } from './entry-write.js';
import { type SqlDialect, sql, sqlDialect } from './sql-dialect.js';
import { StateDatabase } from './state-database.service.js';
import {
  type EntryWrite,
  type JsonValue,
  type PutOptions,
  type RunLease,
  StateConflictError,
  type StateEntry,
  type StateKey,
  StateStore,
} from './state-store.js';
import { RUN_LEASE_PREFIX } from './state-scopes.js';
import { assertLeaseKey, assertSessionKey, assertStateKey } from './state-key.limits.js';
import { stateSpan } from '../telemetry/span-specs.js';
import { type SpanSpec, Tracing } from '../telemetry/tracing.service.js';

interface EntryRow {
  version: number | string;
  updated_at: number | string;
}

interface LeaseRow {
  owner: string;
  expires_at: number | string;
}

/** What a write of an entry answers. */
const RETURNING = 'RETURNING version, updated_at';

/** The entry a write's RETURNING row gives; no row: the write's condition did not hold. */
function written<T extends JsonValue>(
  key: StateKey,
  value: T,
  result: QueryResult,
  expectedVersion: number,
): StateEntry<T> {
  const row = result.records[0] as EntryRow | undefined;
  if (!row) throw new StateConflictError(key, expectedVersion);
  return { ...key, value, version: Number(row.version), updatedAt: Number(row.updated_at) };
}

function statements(d: SqlDialect) {
  const upsertHead = sql(
    d,
  )`INSERT INTO state_entries (tenant_id, session_id, "key", value, version, updated_at)
    VALUES (${'?'}, ${'?'}, ${'?'}, ${'?'}, 1, ${'now'})`;
  const updateAtVersion = sql(d)`UPDATE state_entries
      SET value = ${'?'}, version = version + 1, updated_at = ${'now'}
      WHERE tenant_id = ${'?'} AND session_id = ${'?'} AND "key" = ${'?'} AND version = ${'?'}`;
  const releaseLease = sql(
    d,
  )`DELETE FROM run_leases WHERE tenant_id = ${'?'} AND run_id = ${'?'} AND owner = ${'?'}`;
  return {
    upsert: `${upsertHead}
      ON CONFLICT (tenant_id, session_id, "key") DO UPDATE
      SET value = excluded.value, version = state_entries.version + 1, updated_at = excluded.updated_at
      ${RETURNING}`,
    insertOnly: `${upsertHead}
      ON CONFLICT (tenant_id, session_id, "key") DO NOTHING
      ${RETURNING}`,
    // With put's `whileHolding`: inserted only if this owner holds that lease (its WHERE also
    // settles SQLite's parsing of an upsert after a SELECT).
    insertOnlyWhileHolding: `${sql(d)`INSERT INTO state_entries
        (tenant_id, session_id, "key", value, version, updated_at)
      SELECT ${'?'}, ${'?'}, ${'?'}, ${'?'}, 1, ${'now'}
      WHERE EXISTS (SELECT 1 FROM run_leases
        WHERE tenant_id = ${'?'} AND run_id = ${'?'} AND owner = ${'?'})
      ON CONFLICT (tenant_id, session_id, "key") DO NOTHING`}
      ${RETURNING}`,
    // The hot read: a raw statement skips the repository's query building on every call.
    get: sql(d)`SELECT value, version, updated_at FROM state_entries
      WHERE tenant_id = ${'?'} AND session_id = ${'?'} AND "key" = ${'?'}`,
    updateAtVersion: `${updateAtVersion} ${RETURNING}`,
    // With putAt's `onlyIf`: its condition after the five values above.
    updateAtVersionIf: `${updateAtVersion} AND ${entryWriteCondition(d, 6)} ${RETURNING}`,
    // One statement: insert, take over an expired lease, or renew our own. Losing leaves no row.
    claimLease: sql(
      d,
    )`INSERT INTO run_leases (tenant_id, run_id, owner, acquired_at, expires_at, takeovers)
      VALUES (${'?'}, ${'?'}, ${'?'}, ${'now'}, ${'now'} + ${'?'}, 0)
      ON CONFLICT (tenant_id, run_id) DO UPDATE SET
        owner = excluded.owner,
        acquired_at = CASE WHEN run_leases.owner = excluded.owner
          THEN run_leases.acquired_at ELSE excluded.acquired_at END,
        expires_at = excluded.expires_at,
        takeovers = run_leases.takeovers
          + CASE WHEN run_leases.owner = excluded.owner THEN 0 ELSE 1 END
      WHERE run_leases.owner = excluded.owner OR run_leases.expires_at <= excluded.acquired_at
      RETURNING owner, expires_at`,
    renewLease: sql(d)`UPDATE run_leases SET expires_at = ${'now'} + ${'?'}
      WHERE tenant_id = ${'?'} AND run_id = ${'?'} AND owner = ${'?'}`,
    releaseLease,
    // With a settle's `onlyIf`: its condition after the three values above.
    releaseLeaseIf: `${releaseLease} AND ${entryWriteCondition(d, 4)}`,
    // A run lease is expired rather than deleted, so another replica finds the run and takes it
    // over at once (see RunRecovery); every other lease is simply dropped.
    expireRunLeases: sql(d)`UPDATE run_leases SET expires_at = 0
      WHERE owner = ${'?'} AND run_id LIKE ${'?'}`,
    expireLease: sql(d)`UPDATE run_leases SET expires_at = 0
      WHERE tenant_id = ${'?'} AND run_id = ${'?'} AND owner = ${'?'}`,
    releaseAll: sql(d)`DELETE FROM run_leases WHERE owner = ${'?'} AND run_id NOT LIKE ${'?'}`,
    expiredLeases: sql(d)`SELECT tenant_id, run_id FROM run_leases
      WHERE run_id LIKE ${'?'} AND expires_at <= ${'now'}
      ORDER BY expires_at LIMIT ${'?'}`,
  };
}

const OPERATIONS = {
  get: 'state_entries',
  put: 'state_entries',
  delete: 'state_entries',
  list_keys: 'state_entries',
  claim_run_lease: 'run_leases',
  renew_run_lease: 'run_leases',
  release_run_lease: 'run_leases',
  expire_run_lease: 'run_leases',
  release_all_leases: 'run_leases',
  list_expired_run_leases: 'run_leases',
} as const;

type Operation = keyof typeof OPERATIONS;

/**
 * The StateStore on TypeORM, for sqlite (better-sqlite3, WAL) and PostgreSQL. Writes are single
 * `INSERT … ON CONFLICT` statements, so concurrent replicas never read-then-write. Inside a
 * traced request or run every operation is a span (none in background sweeps); a StateModule
 * used without the TelemetryModule (the state bench) has no tracing.
 */
@Injectable()
export class TypeormStateStore extends StateStore {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly dialect: SqlDialect;
  private readonly sql: ReturnType<typeof statements>;
  private readonly spans: Record<Operation, SpanSpec>;

  constructor(
    private readonly database: StateDatabase,
    @Optional() private readonly tracing?: Tracing,
  ) {
    super();
    this.dialect = sqlDialect(database.backend);
    this.sql = statements(this.dialect);
    this.spans = Object.fromEntries(
      Object.entries(OPERATIONS).map(([operation, table]) => [
        operation,
        stateSpan(database.backend, operation, table),
      ]),
    ) as Record<Operation, SpanSpec>;
    database.beforeClose(() => this.releaseAllLeases());
  }

  private traced<T>(operation: Operation, work: () => Promise<T>): Promise<T> {
    return this.tracing ? this.tracing.inChildSpan(this.spans[operation], work) : work();
  }

  /** Runs one statement and returns rows and affected count in the same shape on both drivers. */
  private run(operation: Operation, query: string, params: unknown[]): Promise<QueryResult> {
    return this.traced(operation, () => this.database.query(query, params));
  }

  private entries<T>(work: (repository: Repository<StateEntryEntity>) => Promise<T>): Promise<T> {
    return this.database.use((source) => work(source.getRepository(StateEntryEntity)));
  }

  async get<T extends JsonValue = JsonValue>(key: StateKey): Promise<StateEntry<T> | null> {
    assertStateKey(key);
    const result = await this.run('get', this.sql.get, [key.tenantId, key.sessionId, key.key]);
    const row = result.records[0] as (EntryRow & { value: string }) | undefined;
    if (!row) return null;
    return {
      ...key,
      value: JSON.parse(row.value) as T,
      version: Number(row.version),
      updatedAt: Number(row.updated_at),
    };
  }

  async put<T extends JsonValue>(
    key: StateKey,
    value: T,
    options: PutOptions = {},
  ): Promise<StateEntry<T>> {
    assertStateKey(key);
    const json = JSON.stringify(value);
    if (options.whileHolding === undefined) {
      return this.write(key, value, json, options.expectedVersion);
    }
    if (options.expectedVersion !== 0) throw new RangeError('whileHolding creates an entry');
    const result = await this.run('put', this.sql.insertOnlyWhileHolding, [
      key.tenantId,
      key.sessionId,
      key.key,
      json,
      key.tenantId,
      options.whileHolding,
      this.owner,
    ]);
    return written(key, value, result, 0);
  }

  putAt<T extends JsonValue>(
    key: StateKey,
    value: T,
    expectedVersion: number,
    onlyIf?: EntryWrite,
  ): { entry: Promise<StateEntry<T>>; write: EntryWrite } {
    assertStateKey(key);
    if (onlyIf && expectedVersion < 1) throw new RangeError('onlyIf needs an existing entry');
    const json = JSON.stringify(value);
    return {
      entry: this.write(key, value, json, expectedVersion, onlyIf),
      write: { key, version: expectedVersion + 1, json },
    };
  }

  /** The write's statement goes out before the first await (putAt relies on it). */
  private async write<T extends JsonValue>(
    key: StateKey,
    value: T,
    json: string,
    expectedVersion: number | undefined,
    onlyIf?: EntryWrite,
  ): Promise<StateEntry<T>> {
    const result =
      expectedVersion === undefined
        ? await this.run('put', this.sql.upsert, [key.tenantId, key.sessionId, key.key, json])
        : expectedVersion === 0
          ? await this.run('put', this.sql.insertOnly, [key.tenantId, key.sessionId, key.key, json])
          : await this.updateAtVersion(key, json, expectedVersion, onlyIf);
    return written(key, value, result, expectedVersion ?? 0);
  }

  private updateAtVersion(
    key: StateKey,
    json: string,
    expectedVersion: number,
    onlyIf: EntryWrite | undefined,
  ): Promise<QueryResult> {
    const params: unknown[] = [json, key.tenantId, key.sessionId, key.key, expectedVersion];
    if (!onlyIf) return this.run('put', this.sql.updateAtVersion, params);
    params.push(...entryWriteValues(this.dialect, onlyIf));
    return this.run('put', this.sql.updateAtVersionIf, params);
  }

  async delete(key: StateKey): Promise<boolean> {
    assertStateKey(key);
    const result = await this.traced('delete', () =>
      this.entries((repository) => repository.delete({ ...key })),
    );
    return (result.affected ?? 0) > 0;
  }

  async listKeys(tenantId: string, sessionId: string): Promise<string[]> {
    assertSessionKey(tenantId, sessionId);
    const rows = await this.traced('list_keys', () =>
      this.entries((repository) =>
        repository.find({
          select: { key: true },
          where: { tenantId, sessionId },
          order: { key: 'ASC' },
        }),
      ),
    );
    return rows.map((row) => row.key);
  }

  async claimRunLease(tenantId: string, runId: string, ttlMs: number): Promise<RunLease | null> {
    assertLeaseKey(tenantId, runId, ttlMs);
    const result = await this.run('claim_run_lease', this.sql.claimLease, [
      tenantId,
      runId,
      this.owner,
      Math.round(ttlMs),
    ]);
    const row = result.records[0] as LeaseRow | undefined;
    if (!row) return null;
    return { tenantId, runId, owner: row.owner, expiresAt: Number(row.expires_at) };
  }

  async renewRunLease(tenantId: string, runId: string, ttlMs: number): Promise<boolean> {
    assertLeaseKey(tenantId, runId, ttlMs);
    const result = await this.run('renew_run_lease', this.sql.renewLease, [
      Math.round(ttlMs),
      tenantId,
      runId,
      this.owner,
    ]);
    return (result.affected ?? 0) > 0;
  }

  async releaseRunLease(tenantId: string, runId: string, onlyIf?: EntryWrite): Promise<boolean> {
    assertLeaseKey(tenantId, runId, 1);
    const params: unknown[] = [tenantId, runId, this.owner];
    if (onlyIf) params.push(...entryWriteValues(this.dialect, onlyIf));
    const text = onlyIf ? this.sql.releaseLeaseIf : this.sql.releaseLease;
    const result = await this.run('release_run_lease', text, params);
    return (result.affected ?? 0) > 0;
  }

  async expireRunLease(tenantId: string, runId: string): Promise<boolean> {
    assertLeaseKey(tenantId, runId, 1);
    const result = await this.run('expire_run_lease', this.sql.expireLease, [
      tenantId,
      runId,
      this.owner,
    ]);
    return (result.affected ?? 0) > 0;
  }

  async releaseAllLeases(): Promise<number> {
    const runs = `${RUN_LEASE_PREFIX}%`;
    const expired = await this.run('release_all_leases', this.sql.expireRunLeases, [
      this.owner,
      runs,
    ]);
    const dropped = await this.run('release_all_leases', this.sql.releaseAll, [this.owner, runs]);
    return (expired.affected ?? 0) + (dropped.affected ?? 0);
  }

  async listExpiredRunLeases(limit: number): Promise<Array<{ tenantId: string; key: string }>> {
    const result = await this.run('list_expired_run_leases', this.sql.expiredLeases, [
      `${RUN_LEASE_PREFIX}%`,
      limit,
    ]);
    const rows = result.records as Array<{ tenant_id: string; run_id: string }>;
    return rows.map((row) => ({ tenantId: row.tenant_id, key: row.run_id }));
  }
}
