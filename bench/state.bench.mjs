/**
 * State backend: the real StateStore (in-process Nest context) against the raw driver running the
 * same statement, on sqlite and PostgreSQL, with a fixed number of operations in flight.
 */
import { join } from 'node:path';
import { scoped } from './lib/cleanup.mjs';
import { createBenchDatabase } from './lib/postgres.mjs';
import { openRawPostgres, openRawSqlite } from './lib/raw-drivers.mjs';
import { closedLoop } from './lib/stats.mjs';
import { openStateStore } from './lib/state-store.mjs';
import { ratio } from './lib/table.mjs';

const KEY_COUNT = 256;
const LEASE_TTL_MS = 30_000;
const RAW_OWNER = 'bench-raw-owner';

/** put: upserts over a rotating set of keys; claim: a new run id each time (always an insert). */
function operations(impl, tenant) {
  let n = 0;
  return {
    put: () => {
      const i = n++;
      return impl.put(tenant, 'bench-session', `key-${i % KEY_COUNT}`, { i, note: 'bench value' });
    },
    claimRunLease: () => impl.claim(tenant, `run-${n++}`),
  };
}

async function measure(op, options) {
  const { concurrency } = options;
  if (options.warmupSeconds > 0) {
    await closedLoop(op, { concurrency, durationMs: options.warmupSeconds * 1000 });
  }
  return closedLoop(op, { concurrency, durationMs: options.seconds * 1000 });
}

async function benchBackend(backend, options, tmpDir) {
  const database =
    backend === 'postgres' ? await createBenchDatabase(options.pgAdminDsn) : undefined;
  const opened = await openStateStore(
    database
      ? { SVC_STATE_BACKEND: 'postgres', SVC_STATE_DSN: database.dsn }
      : { SVC_STATE_BACKEND: 'sqlite', SVC_STATE_SQLITE: join(tmpDir, 'store.sqlite') },
  );
  // Registered after the database, so cleanup closes the pools before dropping it.
  const closeStore = scoped(opened.close);
  let closeRaw;
  try {
    // The raw pg pool shares the migrated database (own tenant id); raw sqlite has its own file.
    const raw = database
      ? openRawPostgres(database.dsn, opened.poolSize)
      : openRawSqlite(join(tmpDir, 'raw.sqlite'));
    closeRaw = scoped(raw.close);
    const { store } = opened;
    const storeOps = operations(
      {
        put: (tenantId, sessionId, key, value) => store.put({ tenantId, sessionId, key }, value),
        claim: (tenantId, runId) => store.claimRunLease(tenantId, runId, LEASE_TTL_MS),
      },
      'store',
    );
    const rawOps = operations(
      {
        put: (tenant, session, key, value) => raw.put(tenant, session, key, JSON.stringify(value)),
        claim: (tenant, runId) => raw.claim(tenant, runId, RAW_OWNER, LEASE_TTL_MS),
      },
      'raw',
    );
    const results = {};
    for (const name of ['put', 'claimRunLease']) {
      const rawResult = await measure(rawOps[name], options);
      const storeResult = await measure(storeOps[name], options);
      results[name] = {
        store: storeResult,
        raw: rawResult,
        storeOverRaw: { opsPerSec: ratio(storeResult.opsPerSec, rawResult.opsPerSec) },
      };
    }
    return results;
  } finally {
    await closeRaw?.();
    await closeStore();
    await database?.drop();
  }
}

export async function stateBench(options, tmpDir) {
  const results = {};
  for (const backend of options.backends) {
    results[backend] = await benchBackend(backend, options, tmpDir);
  }
  return results;
}
