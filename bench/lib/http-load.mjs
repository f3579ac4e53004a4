/** Drives one HTTP target with autocannon (in-process) and measures the server's CPU per request. */
import autocannon from 'autocannon';
import { cpuMicros } from './processes.mjs';
import { latencySummary } from './stats.mjs';

/** One autocannon run; latencies are collected per response at sub-millisecond resolution. */
function fire({ url, headers, connections, seconds }) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const started = process.hrtime.bigint();
    const instance = autocannon(
      { url, headers, connections, duration: seconds },
      (error, result) => {
        if (error) return reject(error);
        resolve({ result, latencies, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTimeMs) => {
      latencies.push(responseTimeMs);
    });
  });
}

/**
 * Warmup, then the measured run. CPU is utime + stime of the server process from /proc, read
 * just before and after the measured run, divided by the requests completed in it.
 */
export async function measureHttp({ url, headers, pid, connections, seconds, warmupSeconds }) {
  if (warmupSeconds > 0) await fire({ url, headers, connections, seconds: warmupSeconds });
  const cpuBefore = await cpuMicros(pid);
  const run = await fire({ url, headers, connections, seconds });
  const cpuAfter = await cpuMicros(pid);
  const completed = run.result.requests.total;
  return {
    requests: completed,
    reqPerSec: completed / run.seconds,
    ...latencySummary(run.latencies),
    cpuUsPerReq: completed > 0 ? (cpuAfter - cpuBefore) / completed : NaN,
    non2xx: run.result.non2xx,
    errors: run.result.errors,
    timeouts: run.result.timeouts,
  };
}
