/** Bench settings from the environment (see bench/README.md). */
import { DURABLE_BEFORE_RUNS_PER_SEC } from './goals.mjs';

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
  'memory',
  'start',
  'counts',
  'soak',
  'ab',
];
/**
 * What runs when BENCH_ONLY is unset: all but `soak`, which takes 10 minutes, and `ab`, which
 * needs BENCH_BEFORE_ROOT (name them to run them).
 */
const DEFAULT_PARTS = PARTS.filter((part) => part !== 'soak' && part !== 'ab');
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

/** A comma list of names out of `allowed`; unset or empty: `fallback` (all of them). */
function list(name, allowed, fallback = allowed) {
  const names = (process.env[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  for (const item of names) {
    if (!allowed.includes(item)) {
      throw new Error(`${name}: unknown name ${item} (one of ${allowed.join(', ')})`);
    }
  }
  return names.length > 0 ? allowed.filter((item) => names.includes(item)) : [...fallback];
}

export function benchOptions() {
  const http = {
    seconds: number('BENCH_DURATION', 5),
    warmupSeconds: number('BENCH_WARMUP', 1),
    // A fresh server's own warmup, shared by the requests it will be measured with: V8 is still
    // compiling a gateway's hot paths after a few seconds (an echo run's CPU falls by about half
    // from its first 3 s to its 9th-12th), and a figure should be the steady state.
    serverWarmupSeconds: number('BENCH_SERVER_WARMUP', 10),
    connections: Math.max(1, number('BENCH_CONNECTIONS', 10, { integer: true })),
  };
  const pgAdminDsn = process.env.BENCH_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const agent = { ...http, backends: list('BENCH_AGENT_BACKENDS', BACKENDS), pgAdminDsn };
  // Connections per route of the mixed load (memory and soak): three routes at once.
  const mixedConnections = Math.max(1, number('BENCH_MIXED_CONNECTIONS', 4, { integer: true }));
  const soak = {
    seconds: number('BENCH_SOAK_SECONDS', 600),
    stepSeconds: number('BENCH_SOAK_STEP', 60),
    connections: mixedConnections,
  };
  // Growth is judged from the second sample (after one step of warm-up) to the last.
  if (!(soak.stepSeconds > 0) || soak.seconds < 2 * soak.stepSeconds) {
    throw new Error('BENCH_SOAK_SECONDS must be at least twice BENCH_SOAK_STEP (> 0)');
  }
  return {
    only: list('BENCH_ONLY', PARTS, DEFAULT_PARTS),
    http,
    agent,
    // The durable goal is set at 32 connections, whatever the other parts use.
    durable: {
      ...agent,
      connections: Math.max(1, number('BENCH_DURABLE_CONNECTIONS', 32, { integer: true })),
      // A checkout of the code before the performance work, built (dist/) with its node_modules:
      // its gateway is measured in the same run, the durable goal's "before".
      beforeRoot: process.env.BENCH_BEFORE_ROOT || undefined,
    },
    // Two builds measured in turns (the `ab` part): BENCH_BEFORE_ROOT against this checkout.
    ab: {
      ...agent,
      backends: list('BENCH_AB_BACKENDS', BACKENDS),
      beforeRoot: process.env.BENCH_BEFORE_ROOT || undefined,
      rounds: Math.max(1, number('BENCH_AB_ROUNDS', 3, { integer: true })),
    },
    // Time-to-first-token requests per concurrency level (at least 4 per connection).
    stream: { requests: Math.max(1, number('BENCH_STREAM_REQUESTS', 200, { integer: true })) },
    // One request at a time: latency without queueing.
    latency: {
      seconds: http.seconds,
      warmupSeconds: http.warmupSeconds,
      serverWarmupSeconds: http.serverWarmupSeconds,
      connections: 1,
      // The servers warm up at the other parts' connections (see latency.bench.mjs).
      warmupConnections: http.connections,
    },
    state: {
      seconds: number('BENCH_STATE_DURATION', 3),
      warmupSeconds: number('BENCH_STATE_WARMUP', 0.5),
      concurrency: Math.max(1, number('BENCH_STATE_CONCURRENCY', 16, { integer: true })),
      backends: list('BENCH_STATE_BACKENDS', BACKENDS),
      pgAdminDsn,
    },
    memory: {
      // Idle: RSS read this long after /readyz first answered 200.
      settleSeconds: number('BENCH_IDLE_SETTLE', 3),
      mixedSeconds: number('BENCH_MIXED_SECONDS', 60),
      connections: mixedConnections,
    },
    // Fresh starts per server; the median is the figure.
    start: { runs: Math.max(1, number('BENCH_START_RUNS', 5, { integer: true })) },
    // Requests counted per route, one at a time, after `warmupRuns` uncounted ones.
    counts: {
      runs: Math.max(1, number('BENCH_COUNT_RUNS', 500, { integer: true })),
      warmupRuns: 200,
      pgAdminDsn,
    },
    soak,
    goals: {
      durableBeforeRunsPerSec: number(
        'BENCH_DURABLE_BEFORE_RUNS_PER_SEC',
        DURABLE_BEFORE_RUNS_PER_SEC,
      ),
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
