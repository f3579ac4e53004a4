/** Bench settings from the environment (see bench/README.md). */

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

export function benchOptions() {
  const backends = (process.env.BENCH_STATE_BACKENDS ?? 'sqlite,postgres')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const backend of backends) {
    if (backend !== 'sqlite' && backend !== 'postgres') {
      throw new Error(`BENCH_STATE_BACKENDS: unknown backend ${backend}`);
    }
  }
  return {
    http: {
      seconds: number('BENCH_DURATION', 5),
      warmupSeconds: number('BENCH_WARMUP', 1),
      connections: Math.max(1, number('BENCH_CONNECTIONS', 10, { integer: true })),
    },
    state: {
      seconds: number('BENCH_STATE_DURATION', 3),
      warmupSeconds: number('BENCH_STATE_WARMUP', 0.5),
      concurrency: Math.max(1, number('BENCH_STATE_CONCURRENCY', 16, { integer: true })),
      backends,
      pgAdminDsn: process.env.BENCH_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  };
}
