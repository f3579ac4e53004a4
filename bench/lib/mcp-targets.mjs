/**
 * The servers the MCP bench loads, each a child process on a free port, ready once /readyz
 * answers 200: `svc serve` in either MCP mode, and the node:http baseline.
 */
import { join } from 'node:path';
import { MCP_API_KEY } from './mcp-requests.mjs';
import { freePort, startNode, waitForAnswer } from './processes.mjs';
import { startGateway, startTarget } from './targets.mjs';

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
    // The HTTP tool's endpoint is the baseline server on loopback.
    SVC_TOOL_ALLOWED_HOSTS: '127.0.0.1',
  };
}

/** `svc serve` with SVC_MCP_MODE=`mode` (lib/targets.mjs's gateway, these settings over its own). */
export function startMcpGateway(mode, tmpDir) {
  return startGateway(`gateway (${mode})`, tmpDir, gatewayEnv(mode, tmpDir));
}

/** lib/baseline-server.mjs, accepting the run's API key. */
export function startMcpBaseline() {
  const args = (port) => ['bench/lib/baseline-server.mjs', String(port)];
  return startTarget('baseline', args, { BASELINE_API_KEY: MCP_API_KEY });
}

/**
 * The official MCP reference server (`@modelcontextprotocol/server-everything`, the v1 SDK with
 * sessions) over Streamable HTTP: the upstream the gateway federates, and the direct baseline.
 */
export async function startEverything() {
  const port = await freePort();
  const entry = 'node_modules/@modelcontextprotocol/server-everything/dist/index.js';
  const child = startNode('server-everything', [entry, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    cwd: process.cwd(),
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForAnswer(child, `${base}/mcp`);
  } catch (error) {
    await child.stop();
    throw error;
  }
  return { child, base };
}
