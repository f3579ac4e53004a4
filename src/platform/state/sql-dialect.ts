import type { StateBackend } from '../config/gateway-config.js';

/** The few places where sqlite and PostgreSQL SQL differ. */
export interface SqlDialect {
  /** Positional parameter n (1-based). */
  param(n: number): string;
  /** The database clock in epoch milliseconds; leases never trust a replica's clock. */
  nowMs: string;
}

const postgres: SqlDialect = {
  param: (n) => `$${n}`,
  nowMs: `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`,
};

const sqlite: SqlDialect = {
  param: () => '?',
  nowMs: `CAST(unixepoch('subsec') * 1000 AS INTEGER)`,
};

export function sqlDialect(backend: StateBackend): SqlDialect {
  return backend === 'postgres' ? postgres : sqlite;
}

/**
 * A template tag that writes SQL for one dialect: `${'?'}` is the next positional parameter,
 * `${'now'}` the database clock. Parameters are bound in order of appearance.
 */
export function sql(dialect: SqlDialect) {
  return (parts: TemplateStringsArray, ...holes: Array<'?' | 'now'>): string => {
    let n = 0;
    return parts.reduce((text, part, i) => {
      const hole = holes[i - 1];
      return text + (hole === 'now' ? dialect.nowMs : dialect.param(++n)) + part;
    });
  };
}
