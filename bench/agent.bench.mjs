/**
 * Agent runs: POST /v1/agent/run with the offline echo provider (one turn, no model call) against
 * a gateway child process per state backend (sqlite in the temp dir, PostgreSQL in a fresh
 * database), once with a generated run id and once with a new caller-chosen `run_id` per request,
 * which adds the idempotency round trips (record reads, lease claim and release, record write).
 * Beside each backend's gateway, its durable floor (lib/durable-floor-server.mjs: bare Nest + the
 * pipe + the rows of a run in one transaction on the same database) answers the same request.
 */
import { measureHttp, warmUp } from './lib/http-load.mjs';
import { AGENT_RUN, agentRunWithRunIds, requestFor } from './lib/routes.mjs';
import { loadRatios } from './lib/table.mjs';
import { expectOk, measureOnce, startDurableFloor, startGatewayOn } from './lib/targets.mjs';

async function benchBackend(backend, options, tmpDir) {
  const { child, base, stop } = await startGatewayOn(backend, `agent-${backend}`, tmpDir, options);
  try {
    const plainRequest = requestFor(base, AGENT_RUN);
    const runIdRequest = requestFor(base, agentRunWithRunIds());
    await expectOk(`agent ${backend}`, plainRequest);
    await expectOk(`agent ${backend} run_id`, runIdRequest.setupRequest(runIdRequest));
    await warmUp([plainRequest, runIdRequest], options);
    const plain = await measureHttp({ request: plainRequest, pid: child.pid, ...options });
    const runId = await measureHttp({ request: runIdRequest, pid: child.pid, ...options });
    return {
      plain,
      runId,
      runIdOverPlain: loadRatios(runId, plain),
    };
  } finally {
    await stop();
  }
}

/**
 * `baseline` and `nest`: the node:http and the bare Nest baseline for the same request, measured
 * in this run (bare Nest reads the body through the pipe and answers; nothing is recorded).
 */
export async function agentBench(baseline, nest, options, tmpDir) {
  const results = { route: `${AGENT_RUN.method} ${AGENT_RUN.path}`, baseline, nest };
  for (const backend of options.backends) {
    const measured = await benchBackend(backend, options, tmpDir);
    const floor = await startDurableFloor(backend, `agent-${backend}`, tmpDir, options);
    measured.floor = await measureOnce(floor, AGENT_RUN, `floor ${backend}`, options);
    measured.plainOverBaseline = loadRatios(measured.plain, baseline);
    measured.plainOverNest = loadRatios(measured.plain, nest);
    measured.plainOverFloor = loadRatios(measured.plain, measured.floor);
    measured.floorOverBaseline = loadRatios(measured.floor, baseline);
    results[backend] = measured;
  }
  return results;
}
