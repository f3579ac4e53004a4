/**
 * PostgreSQL statement groups, another build against this one, in-process (standalone, after
 * `npm run build` in both trees):
 *   node bench/pg-groups-ab.mjs <before-root> [in flight, 1] [rounds, 8]
 * Each "run" asks for five writes in one event-loop turn, as an echo run's settle does (two
 * inserts, two updates, a delete, 800-byte values): one transaction's group of
 * `PostgresStatements`. Both builds' `PostgresStatements` (each with its own pool of 10, in
 * pipeline mode, prepared statements) take turns, the order swapped every round, 3,000 runs per
 * round after 200 unmeasured; the figure is this process's CPU per run (the layer and
 * node-postgres, not the server's) and runs per second, medians of the rounds. BENCH_PG_DSN
 * is the admin connection (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createBenchDatabase } from './lib/postgres.mjs';
import { median } from './lib/stats.mjs';

const [beforeRoot, inFlightArg = '1', roundsArg = '8'] = process.argv.slice(2);
if (!beforeRoot) {
  process.stderr.write('usage: node bench/pg-groups-ab.mjs <before-root> [in flight] [rounds]\n');
  process.exit(2);
}
const inFlight = Number(inFlightArg);
const rounds = Number(roundsArg);
const RUNS = 3_000;
const WARM = 200;
const VALUE = 'x'.repeat(800);

const here = resolve(fileURLToPath(new URL('..', import.meta.url)));
const stateOf = async (root) => {
  const dir = join(resolve(root), 'dist/src/platform/state');
  const { PostgresStatements } = await import(join(dir, 'postgres-statements.js'));
  const { StatementNames } = await import(join(dir, 'statement-names.js'));
  return { PostgresStatements, StatementNames };
};
const builds = { before: await stateOf(beforeRoot), after: await stateOf(here) };

const database = await createBenchDatabase(
  process.env.BENCH_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/postgres',
);
const setup = new pg.Client({ connectionString: database.dsn });
await setup.connect();
await setup.query(
  'CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0)',
);
await setup.end();

let id = 0;
async function round(build) {
  const pool = new pg.Pool({ connectionString: database.dsn, max: 10, pipeline: true });
  const statements = new build.PostgresStatements(pool, new build.StatementNames());
  const run = () => {
    const k = `k${id++}`;
    return Promise.all([
      statements.run('INSERT INTO t (k, v) VALUES ($1, $2)', [k, VALUE]),
      statements.run('UPDATE t SET n = n + 1, v = $2 WHERE k = $1 RETURNING n', [k, VALUE]),
      statements.run('INSERT INTO t (k, v) VALUES ($1, $2)', [`${k}b`, VALUE]),
      statements.run('UPDATE t SET n = n + 1 WHERE k = $1', [`${k}b`]),
      statements.run('DELETE FROM t WHERE k = $1', [`${k}b`]),
    ]);
  };
  for (let i = 0; i < WARM; i++) await run();
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  let left = RUNS;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (left-- > 0) await run();
    }),
  );
  const used = process.cpuUsage(cpu);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  await pool.end();
  return { cpuUs: (used.user + used.system) / RUNS, perSec: (RUNS / ms) * 1000 };
}

const measured = { before: [], after: [] };
try {
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
      measured[name].push(await round(builds[name]));
    }
  }
} finally {
  await database.drop();
}
const summary = Object.fromEntries(
  Object.entries(measured).map(([name, results]) => [
    name,
    { cpuUs: median(results.map((r) => r.cpuUs)), perSec: median(results.map((r) => r.perSec)) },
  ]),
);
for (const [name, { cpuUs, perSec }] of Object.entries(summary)) {
  console.log(`${name}: ${cpuUs.toFixed(1)} us CPU per run, ${perSec.toFixed(0)} runs/s`);
}
console.log(
  `after/before (${inFlight} in flight, median of ${rounds} rounds): CPU ` +
    `${(summary.after.cpuUs / summary.before.cpuUs).toFixed(3)}x, runs/s ` +
    `${(summary.after.perSec / summary.before.perSec).toFixed(3)}x`,
);
