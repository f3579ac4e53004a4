/**
 * HTTP: the raw node:http baseline and the gateway (`svc serve`), each as a child process, driven
 * with the same autocannon settings. The gateway route is GET /info with a Bearer key.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureHttp } from './lib/http-load.mjs';
import { freePort, startNode, waitFor200 } from './lib/processes.mjs';
import { ratio } from './lib/table.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUTE = '/info';

/** The runner's environment without any SVC_/OTEL_ variable, plus `extra`. */
function childEnv(extra) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(SVC|OTEL)_/.test(name)),
  );
  return { ...env, ...extra };
}

async function benchTarget(name, args, env, headers, options) {
  const port = await freePort();
  const child = startNode(name, args(port), { env, cwd: ROOT });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitFor200(child, `${base}/readyz`);
    // Fail fast if the key is refused rather than measuring 401s.
    await waitFor200(child, `${base}${ROUTE}`, { headers, timeoutMs: 2_000 });
    return await measureHttp({ url: `${base}${ROUTE}`, headers, pid: child.pid, ...options });
  } finally {
    await child.stop();
  }
}

export async function httpBench(options, tmpDir) {
  const apiKey = `bench-${randomBytes(12).toString('hex')}`;
  const headers = { authorization: `Bearer ${apiKey}` };
  const baseline = await benchTarget(
    'baseline',
    (port) => ['bench/lib/baseline-server.mjs', String(port)],
    childEnv({ BASELINE_API_KEY: apiKey }),
    headers,
    options,
  );
  const gateway = await benchTarget(
    'gateway',
    (port) => ['dist/src/main.js', 'serve', '--port', String(port)],
    childEnv({
      SVC_API_KEY: apiKey,
      SVC_LOG_LEVEL: 'warn',
      SVC_RATE_LIMIT_PER_MIN: '0',
      SVC_STATE_SQLITE: join(tmpDir, 'gateway-state.sqlite'),
      SVC_BOARD_DB: join(tmpDir, 'gateway-board.sqlite'),
      SVC_SHUTDOWN_TIMEOUT_MS: '2000',
    }),
    headers,
    options,
  );
  return {
    route: `GET ${ROUTE}`,
    baseline,
    gateway,
    gatewayOverBaseline: {
      reqPerSec: ratio(gateway.reqPerSec, baseline.reqPerSec),
      cpuUsPerReq: ratio(gateway.cpuUsPerReq, baseline.cpuUsPerReq),
    },
  };
}
