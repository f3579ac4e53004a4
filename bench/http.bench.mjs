/**
 * HTTP: the gateway (`svc serve`, a child process) on its cheapest authenticated route, GET /info,
 * and on one built-in tool call, POST /v1/tools/default/echo, each against two baselines for the
 * same request measured in this run (baseline.bench.mjs): the raw node:http server and a bare
 * Nest + Express app with the gateway's global validation pipe.
 */
import { measureHttp, warmUp } from './lib/http-load.mjs';
import { requestFor } from './lib/routes.mjs';
import { loadRatios } from './lib/table.mjs';
import { expectOk, startGateway } from './lib/targets.mjs';

/**
 * `routes`: { part: route } for the selected parts (`http`, `tools`); `baselines` and `nest`: the
 * node:http and the bare Nest measurement of each. Returns { part: { route, baseline, nest,
 * gateway, gatewayOverBaseline, gatewayOverNest } }.
 */
export async function httpBench(routes, { baselines, nest }, options, tmpDir) {
  const { child, base } = await startGateway('gateway', tmpDir);
  try {
    const requests = Object.values(routes).map((route) => requestFor(base, route));
    // Fail fast if the key or the body is refused rather than measuring 4xx.
    for (const request of requests) await expectOk('gateway', request);
    await warmUp(requests, options);
    const results = {};
    for (const [i, [part, route]] of Object.entries(routes).entries()) {
      const gateway = await measureHttp({ request: requests[i], pid: child.pid, ...options });
      results[part] = {
        route: `${route.method} ${route.path}`,
        baseline: baselines[part],
        nest: nest[part],
        gateway,
        gatewayOverBaseline: loadRatios(gateway, baselines[part]),
        gatewayOverNest: loadRatios(gateway, nest[part]),
      };
    }
    return results;
  } finally {
    await child.stop();
  }
}
