/**
 * Added latency of one model call through the gateway: a mock OpenAI-compatible endpoint (child
 * process) driven directly with the exact request the gateway sends it, then POST /v1/agent/run
 * through a gateway child process configured with SVC_PROVIDER_URL=<mock>/v1. One connection, one
 * request in flight; a run is one turn here, so exactly one model call per run. The durable floor
 * (lib/durable-floor-server.mjs on sqlite, calling the same mock) shows what the least durable
 * run on this stack adds over the direct call. `idleWake` is what one idle wait costs the work
 * after it on this machine (lib/idle-wake.mjs).
 */
import { Buffer } from 'node:buffer';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { measureHttp, warmUp } from './lib/http-load.mjs';
import { AGENT_RUN, requestFor } from './lib/routes.mjs';
import { ratio } from './lib/table.mjs';
import {
  expectOk,
  measureOnce,
  startDurableFloor,
  startGateway,
  startMockModel,
} from './lib/targets.mjs';

const COMPLETIONS_PATH = '/v1/chat/completions';

/** The latency the durable floor adds over the direct call, measured as the gateway is. */
async function floorLatency(mock, options, tmpDir) {
  const floor = await startDurableFloor('sqlite', 'latency', tmpDir, options, {
    modelUrl: `${mock.base}/v1`,
  });
  return measureOnce(floor, AGENT_RUN, 'latency floor', options, warmingOf(options));
}

/**
 * The servers' own warmup goes at `warmupConnections` in flight: at one, its seconds make about a
 * tenth of the runs, and the gateway's hot paths are still being compiled when it is measured
 * (a c=1 run cost about 3,200 µs of CPU after 5 s of c=1 warmup, 2,300 after 15 s more at 10).
 */
const warmingOf = (options) => ({ ...options, connections: options.warmupConnections });

/**
 * What an idle wait costs the work after it on this machine (lib/idle-wake.mjs): a run at one
 * request in flight waits twice (for its request, for its model's answer), the floor too.
 */
async function idleWake(tmpDir) {
  const script = fileURLToPath(new URL('./lib/idle-wake.mjs', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [script, tmpDir]);
  return JSON.parse(stdout);
}

const addedOver = (measured, direct) => ({
  p50Ms: measured.p50Ms - direct.p50Ms,
  p99Ms: measured.p99Ms - direct.p99Ms,
});

export async function latencyBench(options, tmpDir) {
  const mock = await startMockModel();
  try {
    const { child, base } = await startGateway('latency', tmpDir, {
      SVC_PROVIDER_URL: `${mock.base}/v1`,
      SVC_PROVIDER_API_KEY: 'bench-provider-key',
    });
    try {
      const viaGateway = requestFor(base, AGENT_RUN);
      const run = await expectOk('latency gateway', viaGateway);
      if (run.turns !== 1) throw new Error(`latency: expected a 1-turn run, got ${run.turns}`);
      // Replay what the gateway just sent: same headers, same body (model, messages, tools).
      const sent = await expectOk('mock model', { url: `${mock.base}/last-request` });
      const direct = { url: `${mock.base}${COMPLETIONS_PATH}`, method: 'POST', ...sent };
      await expectOk('mock model', direct);
      await warmUp([direct, viaGateway], warmingOf(options));

      const directResult = await measureHttp({ request: direct, pid: mock.child.pid, ...options });
      const gateway = await measureHttp({ request: viaGateway, pid: child.pid, ...options });
      const floor = await floorLatency(mock, options, tmpDir);
      const wake = await idleWake(tmpDir);
      return {
        route: `${AGENT_RUN.method} ${AGENT_RUN.path}`,
        modelRequestBytes: Buffer.byteLength(sent.body),
        direct: directResult,
        gateway,
        floor,
        added: addedOver(gateway, directResult),
        floorAdded: addedOver(floor, directResult),
        idleWake: wake,
        gatewayOverDirect: {
          p50Ms: ratio(gateway.p50Ms, directResult.p50Ms),
          p99Ms: ratio(gateway.p99Ms, directResult.p99Ms),
        },
      };
    } finally {
      await child.stop();
    }
  } finally {
    await mock.child.stop();
  }
}
