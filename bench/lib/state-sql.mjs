/**
 * The statements the raw-driver baselines run: copies of the StateStore's unconditional upsert and
 * lease claim (src/state/typeorm-state.store.ts, src/state/sql-dialect.ts), so the baseline does
 * the same single statement without TypeORM. Keep them in step with the store.
 */
const dialects = {
  postgres: {
    param: (n) => `$${n}`,
    now: `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`,
  },
  sqlite: { param: () => '?', now: `CAST(unixepoch('subsec') * 1000 AS INTEGER)` },
};

export function stateSql(backend) {
  const { param: p, now } = dialects[backend];
  return {
    // params: tenant_id, session_id, key, value (JSON text)
    upsert: `INSERT INTO state_entries (tenant_id, session_id, "key", value, version, updated_at)
      VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, 1, ${now})
      ON CONFLICT (tenant_id, session_id, "key") DO UPDATE
      SET value = excluded.value, version = state_entries.version + 1, updated_at = excluded.updated_at
      RETURNING version, updated_at`,
    // params: tenant_id, run_id, owner, ttl ms
    claimLease: `INSERT INTO run_leases (tenant_id, run_id, owner, acquired_at, expires_at, takeovers)
      VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${now}, ${now} + ${p(4)}, 0)
      ON CONFLICT (tenant_id, run_id) DO UPDATE SET
        owner = excluded.owner,
        acquired_at = CASE WHEN run_leases.owner = excluded.owner
          THEN run_leases.acquired_at ELSE excluded.acquired_at END,
        expires_at = excluded.expires_at,
        takeovers = run_leases.takeovers
          + CASE WHEN run_leases.owner = excluded.owner THEN 0 ELSE 1 END
      WHERE run_leases.owner = excluded.owner OR run_leases.expires_at <= excluded.acquired_at
      RETURNING owner, expires_at`,
  };
}

/** The schema of migrations/1795305600000-create-state-tables.ts, for the raw sqlite file. */
export const SQLITE_SCHEMA = `
  CREATE TABLE state_entries (
    tenant_id varchar(128) NOT NULL, session_id varchar(256) NOT NULL, "key" varchar(256) NOT NULL,
    value text NOT NULL, version integer NOT NULL, updated_at bigint NOT NULL,
    PRIMARY KEY (tenant_id, session_id, "key"));
  CREATE TABLE run_leases (
    tenant_id varchar(128) NOT NULL, run_id varchar(256) NOT NULL, owner varchar(256) NOT NULL,
    acquired_at bigint NOT NULL, expires_at bigint NOT NULL, takeovers integer NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, run_id));
  CREATE INDEX idx_run_leases_owner ON run_leases (owner);`;
