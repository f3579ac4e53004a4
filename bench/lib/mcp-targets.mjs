/**
 * The servers the MCP bench loads, each a child process on a free port, ready once /readyz
 * answers 200: `svc serve` in either MCP mode, and the node:http baseline.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCP_API_KEY } from './mcp-requests.mjs';
import { freePort, startNode, waitFor200 } from './processes.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The runner's environment without any SVC_/OTEL_ variable, plus `extra`. */
function childEnv(extra) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(SVC|OTEL)_/.test(name)),
  );
  return { ...env, ...extra };
}

async function start(name, args, env) {
  const port = await freePort();
  const child = startNode(name, args(port), { env: childEnv(env), cwd: ROOT });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor200(child, `${base}/readyz`);
  } catch (error) {
    await child.stop();
    throw error;
  }
  return { child, base };
}

/** The gateway's settings for both the child process and the in-process heap probe. */
export function gatewayEnv(mode, tmpDir) {
  return {
    SVC_API_KEY: MCP_API_KEY,
    SVC_LOG_LEVEL: 'warn',
    SVC_RATE_LIMIT_PER_MIN: '0',
    SVC_STATE_SQLITE: join(tmpDir, `mcp-${mode}-state.sqlite`),
    SVC_BOARD_DB: join(tmpDir, `mcp-${mode}-board.sqlite`),
    SVC_SHUTDOWN_TIMEOUT_MS: '2000',
    SVC_MCP_MODE: mode,
  };
}

/** `svc serve` with SVC_MCP_MODE=`mode`. */
export function startMcpGateway(mode, tmpDir) {
  const args = (port) => ['dist/src/main.js', 'serve', '--port', String(port)];
  return start(`gateway (${mode})`, args, gatewayEnv(mode, tmpDir));
}

/** lib/baseline-server.mjs, accepting the run's API key. */
export function startMcpBaseline() {
  const args = (port) => ['bench/lib/baseline-server.mjs', String(port)];
  return start('baseline', args, { BASELINE_API_KEY: MCP_API_KEY });
}
