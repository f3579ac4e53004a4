/**
 * Start time: from spawn to the first 200 on /readyz (polled every 10 ms), BENCH_START_RUNS fresh
 * starts (5) of each server, one at a time: the raw node:http baseline, the bare Nest baseline
 * and the gateway (`svc serve`, sqlite, a fresh state directory each time, so every start creates
 * and migrates its databases). The median is the figure.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { percentile } from './lib/stats.mjs';
import { startBaseline, startGateway, startNestBaseline } from './lib/targets.mjs';

const POLL_MS = 10;

async function startTimes(start, runs) {
  const readyMs = [];
  for (let i = 0; i < runs; i += 1) {
    const { child, readyMs: ms } = await start(i);
    readyMs.push(ms);
    await child.stop();
  }
  const sorted = Float64Array.from(readyMs).sort();
  return { readyMs, medianMs: percentile(sorted, 50) };
}

export async function startBench(options, tmpDir) {
  const target = { pollMs: POLL_MS };
  const freshGateway = async (i) => {
    const stateDir = await mkdtemp(join(tmpDir, `start-${i}-`));
    return startGateway('start', stateDir, {}, target);
  };
  return {
    pollMs: POLL_MS,
    baseline: await startTimes(() => startBaseline(target), options.runs),
    nest: await startTimes(() => startNestBaseline(target), options.runs),
    gateway: await startTimes(freshGateway, options.runs),
  };
}
