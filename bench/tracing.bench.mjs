/**
 * The cost of tracing: agent runs with a tool call (echo provider: HTTP, run, two model calls,
 * a tool call and the state operations, about ten spans per run) against two gateways on sqlite,
 * one keeping its spans in the in-memory ring (the default without a collector) and one with
 * OTEL_SDK_DISABLED=true (no spans). Both serve /metrics as usual.
 */
import { TOOL_RUN } from './lib/routes.mjs';
import { loadRatios } from './lib/table.mjs';
import { measureOnce, startGateway } from './lib/targets.mjs';

async function measure(name, env, options, tmpDir) {
  return measureOnce(await startGateway(name, tmpDir, env), TOOL_RUN, name, options);
}

export async function tracingBench(options, tmpDir) {
  const off = await measure('tracing-off', { OTEL_SDK_DISABLED: 'true' }, options, tmpDir);
  const memory = await measure('tracing-memory', {}, options, tmpDir);
  return {
    route: `${TOOL_RUN.method} ${TOOL_RUN.path}`,
    off,
    memory,
    memoryOverOff: loadRatios(memory, off),
  };
}
