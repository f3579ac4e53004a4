/**
 * Graph runs: a three-step pipeline of built-in tools (`GRAPH_SPEC`) against a plain echo run,
 * in the same gateway (sqlite). A graph run holds a run lease and checkpoints its record before
 * and after every step, so the figure shows what durability costs per run.
 */
import { measureHttp, warmUp } from './lib/http-load.mjs';
import { AGENT_RUN, GRAPH_PUT, GRAPH_RUN, requestFor } from './lib/routes.mjs';
import { loadRatios } from './lib/table.mjs';
import { expectOk, startGateway } from './lib/targets.mjs';

export async function graphBench(options, tmpDir) {
  const { child, base } = await startGateway('graph-sqlite', tmpDir);
  try {
    await expectOk('register the graph', requestFor(base, GRAPH_PUT));
    const plainRequest = requestFor(base, AGENT_RUN);
    const graphRequest = requestFor(base, GRAPH_RUN);
    const run = await expectOk('graph run', graphRequest);
    if (run.status !== 'completed' || run.text !== 'hello!!') {
      throw new Error(`graph run: unexpected answer ${JSON.stringify(run).slice(0, 300)}`);
    }
    await warmUp([plainRequest, graphRequest], options);
    const plain = await measureHttp({ request: plainRequest, pid: child.pid, ...options });
    const graph = await measureHttp({ request: graphRequest, pid: child.pid, ...options });
    return {
      route: `${GRAPH_RUN.method} ${GRAPH_RUN.path}`,
      plain,
      graph,
      graphOverPlain: loadRatios(graph, plain),
    };
  } finally {
    await child.stop();
  }
}
