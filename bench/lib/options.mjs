/** Bench settings from the environment (see bench/README.md). */

/** The parts of a run, in the order they run; BENCH_ONLY picks some of them. */
export const PARTS = [
  'http',
  'tools',
  'agent',
  'durable',
  'latency',
  'state',
  'tracing',
  'graph',
  'wires',
  'stream',
];
const BACKENDS = ['sqlite', 'postgres'];

function number(name, fallback, { integer = false } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new Error(
      `${name} must be a non-negative ${integer ? 'integer' : 'number'} (got ${raw})`,
    );
  }
  return value;
}

/** A comma list of names out of `allowed`; unset or empty: all of them. */
function list(name, allowed) {
  const names = (process.env[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  for (const item of names) {
    if (!allowed.includes(item)) {
      throw new Error(`${name}: unknown name ${item} (one of ${allowed.join(', ')})`);
    }
  }
  return names.length > 0 ? allowed.filter((item) => names.includes(item)) : [...allowed];
}

export function benchOptions() {
  const http = {
    seconds: number('BENCH_DURATION', 5),
    warmupSeconds: number('BENCH_WARMUP', 1),
    connections: Math.max(1, number('BENCH_CONNECTIONS', 10, { integer: true })),
  };
  const pgAdminDsn = process.env.BENCH_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  return {
    only: list('BENCH_ONLY', PARTS),
    http,
    agent: { ...http, backends: list('BENCH_AGENT_BACKENDS', BACKENDS), pgAdminDsn },
    // Time-to-first-token requests per concurrency level (at least 4 per connection).
    stream: { requests: Math.max(1, number('BENCH_STREAM_REQUESTS', 200, { integer: true })) },
    // One request at a time: latency without queueing.
    latency: { seconds: http.seconds, warmupSeconds: http.warmupSeconds, connections: 1 },
    state: {
      seconds: number('BENCH_STATE_DURATION', 3),
      warmupSeconds: number('BENCH_STATE_WARMUP', 0.5),
      concurrency: Math.max(1, number('BENCH_STATE_CONCURRENCY', 16, { integer: true })),
      backends: list('BENCH_STATE_BACKENDS', BACKENDS),
      pgAdminDsn,
    },
  };
}

/**
 * BENCH_GATEWAY_NODE_ARGS: extra node flags for every gateway child, split on spaces (for
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`, which NODE_OPTIONS does not accept).
 */
export function gatewayNodeArgs() {
  return (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
}
