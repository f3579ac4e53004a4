/**
 * Added latency of one model call through the gateway: a mock OpenAI-compatible endpoint (child
 * process) driven directly with the exact request the gateway sends it, then POST /v1/agent/run
 * through a gateway child process configured with SVC_PROVIDER_URL=<mock>/v1. One connection, one
 * request in flight; a run is one turn here, so exactly one model call per run.
 */
import { Buffer } from 'node:buffer';
import { measureHttp, warmUp } from './lib/http-load.mjs';
import { AGENT_RUN, requestFor } from './lib/routes.mjs';
import { ratio } from './lib/table.mjs';
import { expectOk, startGateway, startMockModel } from './lib/targets.mjs';

const COMPLETIONS_PATH = '/v1/chat/completions';

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
      await warmUp([direct, viaGateway], options);

      const directResult = await measureHttp({ request: direct, pid: mock.child.pid, ...options });
      const gateway = await measureHttp({ request: viaGateway, pid: child.pid, ...options });
      return {
        route: `${AGENT_RUN.method} ${AGENT_RUN.path}`,
        modelRequestBytes: Buffer.byteLength(sent.body),
        direct: directResult,
        gateway,
        added: {
          p50Ms: gateway.p50Ms - directResult.p50Ms,
          p99Ms: gateway.p99Ms - directResult.p99Ms,
        },
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
