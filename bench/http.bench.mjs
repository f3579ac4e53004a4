/**
 * HTTP: the gateway (`svc serve`, a child process) on its cheapest authenticated route, GET /info,
 * and on one built-in tool call, POST /v1/tools/default/echo, each against the raw node:http
 * baseline for the same request measured in this run (baseline.bench.mjs).
 */
import { measureHttp, warmUp } from './lib/http-load.mjs';
import { requestFor } from './lib/routes.mjs';
import { ratio } from './lib/table.mjs';
import { expectOk, startGateway } from './lib/targets.mjs';

/**
 * `routes`: { part: route } for the selected parts (`http`, `tools`); `baselines`: the baseline
 * measurement of each. Returns { part: { route, baseline, gateway, gatewayOverBaseline } }.
 */
export async function httpBench(routes, baselines, options, tmpDir) {
  const { child, base } = await startGateway('gateway', tmpDir);
  try {
    const requests = Object.values(routes).map((route) => requestFor(base, route));
    // Fail fast if the key or the body is refused rather than measuring 4xx.
    for (const request of requests) await expectOk('gateway', request);
    await warmUp(requests, options);
    const results = {};
    for (const [i, [part, route]] of Object.entries(routes).entries()) {
      const gateway = await measureHttp({ request: requests[i], pid: child.pid, ...options });
      const baseline = baselines[part];
      results[part] = {
        route: `${route.method} ${route.path}`,
        baseline,
        gateway,
        gatewayOverBaseline: {
          reqPerSec: ratio(gateway.reqPerSec, baseline.reqPerSec),
          cpuUsPerReq: ratio(gateway.cpuUsPerReq, baseline.cpuUsPerReq),
        },
      };
    }
    return results;
  } finally {
    await child.stop();
  }
}
