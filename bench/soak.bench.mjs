/**
 * Live heap soak: a gateway built from dist/ in this process (sqlite, like `svc serve`), under
 * BENCH_SOAK_SECONDS of mixed load (lib/mixed-load.mjs) in steps of BENCH_SOAK_STEP seconds.
 * Before the first step and after each, with the load stopped, full GCs run and
 * process.memoryUsage().heapUsed is read: what is still reachable. In-process because a child
 * gateway has no way to report its live heap; autocannon shares the heap, but its instances are
 * done (and collectable) at every sample. Growth is judged from the second sample (one step of
 * warm-up: JIT, caches, the span ring filling) to the last.
 */
import 'reflect-metadata';
import { createGatewayApp } from '../dist/src/app/create-app.js';
import { loadConfig } from '../dist/src/platform/config/load-config.js';
import { scoped } from './lib/cleanup.mjs';
import { collector, heapUsedMb } from './lib/heap.mjs';
import { mixedLoad, mixedRequests } from './lib/mixed-load.mjs';
import { gatewayEnv } from './lib/targets.mjs';

/** Adds the counts of one step's load to `totals` ({ name: counts }). */
function addLoad(totals, load) {
  for (const [name, counts] of Object.entries(load)) {
    const total = (totals[name] ??= { requests: 0, non2xx: 0, errors: 0, timeouts: 0 });
    for (const key of Object.keys(total)) total[key] += counts[key];
  }
}

export async function soakBench(options, tmpDir) {
  const { seconds, stepSeconds, connections } = options;
  const gc = collector();
  // Silent: the gateway logs to this process's stdout, where the report goes.
  const config = loadConfig({ ...gatewayEnv('soak', tmpDir), SVC_LOG_LEVEL: 'silent' });
  const app = await createGatewayApp(config);
  const close = scoped(() => app.close());
  try {
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${app.getHttpServer().address().port}`;
    const requests = await mixedRequests(base);
    const samples = [{ seconds: 0, requests: 0, heapMb: await heapUsedMb(gc) }];
    const load = {};
    const steps = Math.floor(seconds / stepSeconds);
    for (let step = 1; step <= steps; step += 1) {
      addLoad(load, await mixedLoad(requests, { connections, seconds: stepSeconds }));
      const done = Object.values(load).reduce((sum, counts) => sum + counts.requests, 0);
      samples.push({ seconds: step * stepSeconds, requests: done, heapMb: await heapUsedMb(gc) });
      process.stderr.write(
        `bench: soak ${step * stepSeconds}/${steps * stepSeconds} s, ` +
          `heap ${samples.at(-1).heapMb.toFixed(2)} MB\n`,
      );
    }
    const from = samples[1].heapMb;
    const growthMb = samples.at(-1).heapMb - from;
    return {
      seconds: steps * stepSeconds,
      stepSeconds,
      connections,
      samples,
      growthMb,
      growthRatio: growthMb / from,
      load,
    };
  } finally {
    await close();
  }
}
