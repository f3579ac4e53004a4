/**
 * Preloaded into a gateway by the `counts` part (`node --import`): counts the async resources
 * the process creates (promises, timers, immediates, next-tick callbacks, …) by type, the
 * statements it runs, the bytes of their parameters and the transactions it commits on sqlite
 * or PostgreSQL, and its PostgreSQL pool checkouts, between two SIGUSR2 signals, and writes
 * them as JSON to BENCH_COUNTS_OUT at the second. Counts do not move with the machine's load, where CPU times do.
 */
import { createHook } from 'node:async_hooks';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

let counting = false;
let counts = {};
createHook({
  init(_id, type) {
    if (counting) counts[type] = (counts[type] ?? 0) + 1;
  },
}).enable();

const count = (what, n = 1) => {
  if (counting) counts[what] = (counts[what] ?? 0) + n;
};

/** What a statement's parameters take as sent: UTF-8 text, a buffer's bytes, a number's digits. */
function bytesOf(params) {
  let bytes = 0;
  for (const value of params ?? []) {
    if (value === null || value === undefined) continue;
    bytes += Buffer.isBuffer(value) ? value.length : Buffer.byteLength(String(value));
  }
  return bytes;
}

// better-sqlite3 as the gateway loads it (one CommonJS instance). Its transactions run their
// BEGIN and COMMIT as statements too: those are not counted as statements; a COMMIT, and a write
// outside a transaction, is one commit (sqlite counts BEGIN and COMMIT as read-only).
const Database = createRequire(process.argv[1])('better-sqlite3');
const statementType = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1'));
const CONTROL = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
const COMMIT = /^\s*(COMMIT|END)\b/i;
for (const method of ['run', 'get', 'all']) {
  const original = statementType[method];
  statementType[method] = function (...params) {
    const result = original.apply(this, params);
    if (COMMIT.test(this.source)) count('sqlite commits');
    else if (!CONTROL.test(this.source)) {
      count('sqlite statements');
      count('sqlite parameter bytes', bytesOf(params));
      if (!this.readonly && !this.database.inTransaction) count('sqlite commits');
    }
    return result;
  };
}

// node-postgres as the gateway loads it. A client's statements are sent in order (pipelined),
// so one sent between its BEGIN and its COMMIT is in that transaction: a COMMIT, and a write
// sent outside one, is one commit. The gateway's statement group (GroupQuery: `statements`
// before one Sync) is one query to node-postgres: its statements count each, and it commits
// once. A pool checkout is one statement group, one round trip.
const pg = createRequire(process.argv[1])('pg');
const inTransaction = new WeakSet();
const READS = /^\s*SELECT\b/i;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  if (Array.isArray(config?.statements)) {
    count('postgres statements', config.statements.length);
    count('postgres commits');
    for (const { params } of config.statements) count('postgres parameter bytes', bytesOf(params));
    return query.call(this, config, ...rest);
  }
  const text = typeof config === 'string' ? config : (config?.text ?? '');
  count(
    'postgres parameter bytes',
    bytesOf(config?.values ?? (Array.isArray(rest[0]) ? rest[0] : [])),
  );
  if (/^\s*BEGIN\b/i.test(text)) inTransaction.add(this);
  else if (/^\s*(COMMIT|END|ROLLBACK)\b/i.test(text)) {
    if (COMMIT.test(text)) count('postgres commits');
    inTransaction.delete(this);
  } else {
    count('postgres statements');
    if (!READS.test(text) && !inTransaction.has(this)) count('postgres commits');
  }
  return query.call(this, config, ...rest);
};
const connect = pg.Pool.prototype.connect;
pg.Pool.prototype.connect = function (...args) {
  count('postgres checkouts');
  return connect.apply(this, args);
};

process.on('SIGUSR2', () => {
  if (!counting) {
    counts = {};
    counting = true;
    return;
  }
  counting = false;
  writeFileSync(process.env.BENCH_COUNTS_OUT, JSON.stringify(counts));
});
