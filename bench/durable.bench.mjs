/**
 * Durable plain runs with a tool call: POST /v1/agent/run with `/tool calculator {...}` and the
 * offline echo provider (two model turns and one built-in tool call), against a gateway child
 * process per state backend, with a generated run id and with a new caller-chosen `run_id` per
 * request. Every run is recorded, leased and checkpointed (after each turn and tool call), so
 * this is what durability costs a run with a tool call; the node:http baseline gets the same
 * request in the same run. With BENCH_BEFORE_ROOT, the plain run is also measured on a gateway
 * built from that checkout (the code before the performance work), in the same run.
 */
import { measureHttp, warmUp } from './lib/http-load.mjs';
import { TOOL_RUN, agentRunWithRunIds, requestFor } from './lib/routes.mjs';
import { loadRatios } from './lib/table.mjs';
import { expectOk, measureOnce, startGatewayOn } from './lib/targets.mjs';

/** The plain run on a gateway built from `root` (BENCH_BEFORE_ROOT), on a database of its own. */
async function benchBefore(backend, root, options, tmpDir) {
  const before = await startGatewayOn(backend, `before-${backend}`, tmpDir, options, { cwd: root });
  return measureOnce(before, TOOL_RUN, `durable ${backend} (before)`, options);
}

async function benchBackend(backend, options, tmpDir) {
  const { child, base, stop } = await startGatewayOn(
    backend,
    `durable-${backend}`,
    tmpDir,
    options,
  );
  try {
    const plainRequest = requestFor(base, TOOL_RUN);
    const runIdRequest = requestFor(base, agentRunWithRunIds(TOOL_RUN));
    await expectOk(`durable ${backend}`, plainRequest);
    await expectOk(`durable ${backend} run_id`, runIdRequest.setupRequest(runIdRequest));
    await warmUp([plainRequest, runIdRequest], options);
    const plain = await measureHttp({ request: plainRequest, pid: child.pid, ...options });
    const runId = await measureHttp({ request: runIdRequest, pid: child.pid, ...options });
    return { plain, runId };
  } finally {
    await stop();
  }
}

/** `baseline`: the node:http baseline for the same request, measured in this run. */
export async function durableBench(baseline, options, tmpDir) {
  const results = { route: `${TOOL_RUN.method} ${TOOL_RUN.path}`, baseline };
  for (const backend of options.backends) {
    const measured = await benchBackend(backend, options, tmpDir);
    if (options.beforeRoot) {
      measured.before = await benchBefore(backend, options.beforeRoot, options, tmpDir);
      measured.plainOverBefore = loadRatios(measured.plain, measured.before);
    }
    for (const variant of ['plain', 'runId']) {
      measured[`${variant}OverBaseline`] = loadRatios(measured[variant], baseline);
    }
    results[backend] = measured;
  }
  return results;
}
