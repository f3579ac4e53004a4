/**
 * The baselines, each a child process measured once per run for each request shape the gateway
 * figures compare against: GET (like GET /info) and POST with a small JSON body (like a tool
 * call). The raw node:http server (lib/baseline-server.mjs) by default; the bare Nest app
 * (lib/nest-baseline-server.mjs) for `http` and `tools`. Same autocannon settings as the gateway.
 */
import { measureHttp, warmUp } from './lib/http-load.mjs';
import { requestFor } from './lib/routes.mjs';
import { expectOk, startBaseline } from './lib/targets.mjs';

/**
 * `routes`: { name: route }; `start`: which baseline (startBaseline or startNestBaseline).
 * Returns { name: measurement } in the same order.
 */
export async function baselineBench(routes, options, start = startBaseline) {
  const { child, base } = await start();
  try {
    const requests = Object.values(routes).map((route) => requestFor(base, route));
    for (const request of requests) await expectOk(child.name, request);
    await warmUp(requests, options);
    const results = {};
    for (const [i, name] of Object.keys(routes).entries()) {
      results[name] = await measureHttp({ request: requests[i], pid: child.pid, ...options });
    }
    return results;
  } finally {
    await child.stop();
  }
}
