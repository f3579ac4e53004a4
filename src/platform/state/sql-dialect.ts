import { hash } from 'node:crypto';
import type { StateBackend } from '../config/gateway-config.js';

/** The few places where sqlite and PostgreSQL SQL differ. */
export interface SqlDialect {
  /** Positional parameter n (1-based). */
  param(n: number): string;
  /** The database clock in epoch milliseconds; leases never trust a replica's clock. */
  nowMs: string;
  /**
   * The condition that a row's `value` is the text `valueKey(text)` was made of, bound at
   * `param` (an entry write's condition, entry-write.ts).
   */
  valueIs(param: string): string;
  valueKey(text: string): unknown;
}

/**
 * PostgreSQL compares SHA-256 digests: a settled run's record is the condition of four
 * statements in its group, and its whole text in each was two fifths of the bytes a run sent.
 * Its encoding as the database would give it: `convert_to` makes UTF-8, as Node's hash does.
 */
const postgresValueKey = lastOf((text: string) => hash('sha256', text, 'buffer'));

const postgres: SqlDialect = {
  param: (n) => `$${n}`,
  nowMs: `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`,
  valueIs: (param) => `sha256(convert_to(value, 'UTF8')) = ${param}`,
  valueKey: postgresValueKey,
};

const sqlite: SqlDialect = {
  param: () => '?',
  nowMs: `CAST(unixepoch('subsec') * 1000 AS INTEGER)`,
  // In process, binding the text costs a copy: nothing to gain from a digest.
  valueIs: (param) => `value = ${param}`,
  valueKey: (text) => text,
};

/** `make`, remembering its last answer: the statements of one write ask for it in a row. */
function lastOf<T>(make: (text: string) => T): (text: string) => T {
  let last: { text: string; made: T } | undefined;
  return (text) => {
    if (last?.text !== text) last = { text, made: make(text) };
    return last.made;
  };
}

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
