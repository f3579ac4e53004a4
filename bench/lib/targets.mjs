/**
 * The servers under load, each a child process on a free port: the gateway (`svc serve`), the
 * node:http baseline, the bare Nest baseline, the durable floor and the mock model. start*()
 * resolve once /readyz answers 200.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { gatewayNodeArgs } from './options.mjs';
import { createBenchDatabase } from './postgres.mjs';
import { freePort, startNode, waitFor200 } from './processes.mjs';
import { measureHttp, warmUp } from './http-load.mjs';
import { API_KEY, requestFor } from './routes.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The runner's environment without any SVC_/OTEL_ variable, plus `extra`. */
function childEnv(extra) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(SVC|OTEL)_/.test(name)),
  );
  return { ...env, ...extra };
}

/**
 * Starts `node <args(port)>` in `cwd` (this checkout by default); returns { child, base, readyMs } with base = http://127.0.0.1:<port>
 * and readyMs the time from spawn to the first 200 on /readyz (polled every `pollMs`).
 */
export async function startTarget(name, args, env, { pollMs, cwd = ROOT } = {}) {
  const port = await freePort();
  const spawned = performance.now();
  const child = startNode(name, args(port), { env: childEnv(env), cwd });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor200(child, `${base}/readyz`, { intervalMs: pollMs });
  } catch (error) {
    await child.stop();
    throw error;
  }
  return { child, base, readyMs: performance.now() - spawned };
}

/**
 * The gateway's settings: the run's API key, warn-level logs, the rate limit off and its state in
 * `tmpDir` (sqlite file `<name>-state.sqlite`). Also used for a gateway built in-process.
 */
export function gatewayEnv(name, tmpDir) {
  return {
    SVC_API_KEY: API_KEY,
    SVC_LOG_LEVEL: 'warn',
    SVC_RATE_LIMIT_PER_MIN: '0',
    SVC_STATE_SQLITE: join(tmpDir, `${name}-state.sqlite`),
    SVC_BOARD_DB: join(tmpDir, `${name}-board.sqlite`),
    SVC_SHUTDOWN_TIMEOUT_MS: '2000',
  };
}

/**
 * The CLI of the checkout at `root`: the bundle `npm run build` makes (dist/svc/main.js), or
 * dist/src/main.js in a build from before the bundle (a BENCH_BEFORE_ROOT checkout).
 */
export function gatewayEntry(root = ROOT) {
  return existsSync(join(root, 'dist/svc/main.js')) ? 'dist/svc/main.js' : 'dist/src/main.js';
}

/**
 * `svc serve` with gatewayEnv(name, tmpDir), unless `env` picks another backend. Node flags
 * from BENCH_GATEWAY_NODE_ARGS go first, then `target.nodeArgs`. `target` is passed to
 * startTarget ({ pollMs, cwd }: another checkout's build with `cwd`).
 */
export function startGateway(name, tmpDir, env = {}, target = {}) {
  const nodeArgs = [...gatewayNodeArgs(), ...(target.nodeArgs ?? [])];
  const entry = gatewayEntry(target.cwd);
  const args = (port) => [...nodeArgs, entry, 'serve', '--port', `${port}`];
  return startTarget(name, args, { ...gatewayEnv(name, tmpDir), ...env }, target);
}

/**
 * `start(database)` with a PostgreSQL database of its own when `backend` is postgres (created
 * from `pgAdminDsn`; undefined on sqlite). The answer's `stop()` stops the child, then drops the
 * database.
 */
async function onBackend(backend, pgAdminDsn, start) {
  const database = backend === 'postgres' ? await createBenchDatabase(pgAdminDsn) : undefined;
  let started;
  try {
    // Started after the database, so cleanup stops the child before dropping it.
    started = await start(database);
  } catch (error) {
    await database?.drop();
    throw error;
  }
  const stop = async () => {
    try {
      await started.child.stop();
    } finally {
      await database?.drop();
    }
  };
  return { ...started, stop };
}

/** The gateway's state settings for `database` (from onBackend), or `sqlite` otherwise. */
function stateEnv(database, sqlite) {
  if (database) return { SVC_STATE_BACKEND: 'postgres', SVC_STATE_DSN: database.dsn };
  return sqlite ? { SVC_STATE_SQLITE: sqlite } : {};
}

/**
 * startGateway on a state `backend`: sqlite in `tmpDir`, or a PostgreSQL database of its own,
 * created from `pgAdminDsn`; `target.env` adds to the gateway's environment. `stop()` stops the
 * gateway, then drops its database.
 */
export function startGatewayOn(backend, name, tmpDir, { pgAdminDsn }, target = {}) {
  const { env = {}, ...rest } = target;
  return onBackend(backend, pgAdminDsn, (database) =>
    startGateway(name, tmpDir, { ...env, ...stateEnv(database) }, rest),
  );
}

/**
 * lib/durable-floor-server.mjs on a state `backend` (a sqlite file in `tmpDir`, or a PostgreSQL
 * database of its own from `pgAdminDsn`), its tables made by `svc migrate`; with `modelUrl`
 * (`<base>/v1`) each run calls that model first. `stop()` stops it, then drops its database.
 */
export function startDurableFloor(backend, name, tmpDir, { pgAdminDsn }, { modelUrl } = {}) {
  const sqlite = join(tmpDir, `${name}-floor.sqlite`);
  return onBackend(backend, pgAdminDsn, async (database) => {
    await promisify(execFile)(process.execPath, [gatewayEntry(), 'migrate'], {
      cwd: ROOT,
      env: childEnv(stateEnv(database, sqlite)),
    });
    const env = {
      BASELINE_API_KEY: API_KEY,
      FLOOR_BACKEND: backend,
      ...(database ? { FLOOR_DSN: database.dsn } : { FLOOR_SQLITE: sqlite }),
      ...(modelUrl ? { FLOOR_MODEL_URL: modelUrl } : {}),
    };
    const args = (port) => ['bench/lib/durable-floor-server.mjs', String(port)];
    return startTarget(`floor-${name}`, args, env);
  });
}

/** lib/baseline-server.mjs, accepting the run's API key. */
export function startBaseline(target = {}) {
  const args = (port) => ['bench/lib/baseline-server.mjs', String(port)];
  return startTarget('baseline', args, { BASELINE_API_KEY: API_KEY }, target);
}

/**
 * lib/nest-baseline-server.mjs (Nest + Express + the gateway's pipe on its body), with the run's
 * API key.
 */
export function startNestBaseline(target = {}) {
  const args = (port) => ['bench/lib/nest-baseline-server.mjs', String(port)];
  return startTarget('nest-baseline', args, { BASELINE_API_KEY: API_KEY }, target);
}

/** lib/mock-model-server.mjs, an OpenAI-compatible endpoint at `${base}/v1`. */
export function startMockModel() {
  return startTarget('mock-model', (port) => ['bench/lib/mock-model-server.mjs', String(port)], {});
}

/**
 * Sends `request` (from routes.requestFor) once and returns the parsed answer; throws unless it
 * is 2xx, so a refused key or a broken route fails the run instead of being measured.
 */
export async function expectOk(name, request) {
  // A route that makes each request anew (a new run_id each time) makes this one too.
  const { url, method = 'GET', headers, body } = request.setupRequest?.(request) ?? request;
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  if (!response.ok)
    throw new Error(`${name}: ${method} ${url} answered ${response.status}: ${text}`);
  // A streamed run answers its events (text/event-stream): its text is the answer.
  return response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
}

/**
 * Measures `route` on a target just started (what a start* function answers): one request
 * must answer 2xx, then the warmup (`warming`, the measurement's options unless given) and the
 * measured run; the target is stopped whatever happens (its `stop()`, which also drops a
 * database of its own, or its child's).
 */
export async function measureOnce(started, route, label, options, warming = options) {
  const { child, base } = started;
  const stop = started.stop ?? child.stop;
  try {
    const request = requestFor(base, route);
    await expectOk(label, request);
    await warmUp([request], warming);
    return await measureHttp({ request, pid: child.pid, ...options });
  } finally {
    await stop();
  }
}
