/** Drives one HTTP target with autocannon (in-process) and measures the server's CPU per request. */
import autocannon from 'autocannon';
import { cpuMicros } from './processes.mjs';
import { latencySummary } from './stats.mjs';

/**
 * One autocannon run; latencies are collected per response at sub-millisecond resolution.
 * `setupRequest(request)` (optional) rewrites every request before it is sent (a fresh body each
 * time); it runs in this process, on the load generator's time.
 */
function fire({
  url,
  method,
  headers,
  body,
  setupRequest,
  connections,
  pipelining,
  seconds,
  collect = true,
}) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const started = process.hrtime.bigint();
    const instance = autocannon(
      {
        url,
        method,
        headers,
        body,
        connections,
        pipelining,
        duration: seconds,
        ...(setupRequest ? { requests: [{ setupRequest }] } : {}),
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({ result, latencies, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
      },
    );
    // A warmup keeps no latencies: hundreds of thousands of them would leave the load
    // generator collecting garbage while the next figure is measured.
    if (collect) {
      instance.on('response', (_client, _status, _bytes, responseTimeMs) => {
        latencies.push(responseTimeMs);
      });
    }
  });
}

/**
 * Warms a freshly started server up with every request shape it is about to be measured with
 * (unmeasured; `serverWarmupSeconds` shared by the shapes, at least `warmupSeconds` each), so
 * the first figure of a process is not the one that pays for JIT compilation and heap growth.
 */
export async function warmUp(
  requests,
  { connections, pipelining = 1, warmupSeconds, serverWarmupSeconds = 0 },
) {
  const seconds = Math.max(warmupSeconds, serverWarmupSeconds / requests.length);
  if (!(seconds > 0)) return;
  for (const request of requests) {
    await fire({ method: 'GET', ...request, connections, pipelining, seconds, collect: false });
  }
}

/**
 * Warmup, then the measured run. CPU is utime + stime of the server process from /proc, read
 * just before and after the measured run, divided by the requests completed in it.
 * `request` is { url, method = GET, headers, body, setupRequest }.
 */
export async function measureHttp({
  request,
  pid,
  connections,
  pipelining = 1,
  seconds,
  warmupSeconds,
}) {
  const load = { method: 'GET', ...request, connections, pipelining };
  if (warmupSeconds > 0) await fire({ ...load, seconds: warmupSeconds, collect: false });
  const cpuBefore = await cpuMicros(pid);
  const run = await fire({ ...load, seconds });
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
