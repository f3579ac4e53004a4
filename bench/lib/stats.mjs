/** Percentiles and the closed-loop driver for in-process operations. */

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** The median of `values` as every part takes it (nearest rank, `percentile` at 50). */
export function median(values) {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** p50 and p99 of latencies in milliseconds. */
export function latencySummary(latenciesMs) {
  const sorted = Float64Array.from(latenciesMs).sort();
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
}

/**
 * Keeps `concurrency` calls of `op` in flight for `durationMs` (each worker starts the next call
 * when its previous one settles). The first failure stops every worker and is rethrown.
 */
export async function closedLoop(op, { concurrency, durationMs }) {
  const latencies = [];
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(durationMs * 1e6));
  let failed = false;
  const worker = async () => {
    while (!failed && process.hrtime.bigint() < deadline) {
      const t0 = process.hrtime.bigint();
      try {
        await op();
      } catch (error) {
        failed = true;
        throw error;
      }
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return {
    ops: latencies.length,
    opsPerSec: latencies.length / seconds,
    ...latencySummary(latencies),
  };
}
