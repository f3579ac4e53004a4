/**
 * Memory: resident set size (VmRSS from /proc/<pid>/status) of each server idle, BENCH_IDLE_SETTLE
 * seconds after its /readyz first answered 200: the raw node:http baseline, the bare Nest
 * baseline and the gateway (`svc serve`, sqlite). Then the same gateway under BENCH_MIXED_SECONDS
 * of mixed load (lib/mixed-load.mjs), its RSS sampled every second, without forcing a GC: the
 * peak, the end and the kernel's high-water mark (VmHWM).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { mixedLoad, mixedRequests } from './lib/mixed-load.mjs';
import { memoryOf } from './lib/processes.mjs';
import { startBaseline, startGateway, startNestBaseline } from './lib/targets.mjs';

/** Starts a server, lets it settle, reads its RSS; stops it unless `keep`. */
async function idleRss(start, settleSeconds, keep = false) {
  const target = await start();
  try {
    await sleep(settleSeconds * 1000);
    const { rssMb } = await memoryOf(target.child.pid);
    return { target, rssMb };
  } finally {
    if (!keep) await target.child.stop();
  }
}

/** Reads the RSS of `pid` every second until stop() (which returns the samples, in MiB). */
function sampleRss(pid) {
  const samples = [];
  let reading = Promise.resolve();
  const read = () => {
    reading = memoryOf(pid).then(({ rssMb }) => void samples.push(rssMb));
  };
  const timer = setInterval(read, 1000);
  return async () => {
    clearInterval(timer);
    await reading;
    return samples;
  };
}

export async function memoryBench(options, tmpDir) {
  const { settleSeconds, mixedSeconds, connections } = options;
  const baseline = await idleRss(startBaseline, settleSeconds);
  const nest = await idleRss(startNestBaseline, settleSeconds);
  const gateway = await idleRss(() => startGateway('memory', tmpDir), settleSeconds, true);
  const { child, base } = gateway.target;
  try {
    const requests = await mixedRequests(base);
    const stopSampling = sampleRss(child.pid);
    const load = await mixedLoad(requests, { connections, seconds: mixedSeconds });
    const samples = await stopSampling();
    // The end figure: right after the load stopped, nothing collected on purpose.
    const end = await memoryOf(child.pid);
    samples.push(end.rssMb);
    return {
      idle: { baseline: baseline.rssMb, nest: nest.rssMb, gateway: gateway.rssMb },
      mixed: {
        seconds: mixedSeconds,
        connections,
        peakRssMb: Math.max(...samples),
        endRssMb: end.rssMb,
        hwmMb: end.hwmMb,
        samples,
        load,
      },
    };
  } finally {
    await child.stop();
  }
}
