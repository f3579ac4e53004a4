/**
 * `npm run bench`: builds, then runs the benchmarks that BENCH_ONLY selects (all by default) and
 * prints a table of each plus a JSON summary. See bench/README.md for what the figures mean and
 * the BENCH_* settings.
 */
import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { abBench } from './ab.bench.mjs';
import { agentBench } from './agent.bench.mjs';
import { baselineBench } from './baseline.bench.mjs';
import { httpBench } from './http.bench.mjs';
import { latencyBench } from './latency.bench.mjs';
import { cleanupAll, cleanupOnSignals, isStopping, onCleanup } from './lib/cleanup.mjs';
import { goalVerdicts, goalsReport } from './lib/goals.mjs';
import { benchOptions } from './lib/options.mjs';
import {
  abReport,
  agentReport,
  durableReport,
  httpReport,
  jsonSummary,
  latencyReport,
  stateReport,
  streamReport,
  graphReport,
  tracingReport,
  wiresReport,
  warnings,
} from './lib/report.mjs';
import { countsReport, memoryReport, soakReport, startReport } from './lib/resource-report.mjs';
import { AGENT_RUN, INFO, TOOL_CALL, TOOL_RUN } from './lib/routes.mjs';
import { startNestBaseline } from './lib/targets.mjs';
import { durableBench } from './durable.bench.mjs';
import { memoryBench } from './memory.bench.mjs';
import { startBench } from './start.bench.mjs';
import { countsBench } from './counts.bench.mjs';
import { stateBench } from './state.bench.mjs';
import { graphBench } from './graph.bench.mjs';
import { streamBench } from './stream.bench.mjs';
import { tracingBench } from './tracing.bench.mjs';
import { wiresBench } from './wires.bench.mjs';

/**
 * The request each part measures against the node:http baseline (`durable` at its own
 * connections, so on its own baseline run).
 */
const BASELINE_ROUTES = { http: INFO, tools: TOOL_CALL, agent: AGENT_RUN };

function pick(object, names) {
  return Object.fromEntries(names.filter((name) => name in object).map((n) => [n, object[n]]));
}

cleanupOnSignals();
let exitCode = 0;
try {
  const options = benchOptions();
  const only = new Set(options.only);
  const tmpDir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  onCleanup(() => rm(tmpDir, { recursive: true, force: true }));
  const started = Date.now();
  const results = {};

  const baselineRoutes = pick(BASELINE_ROUTES, options.only);
  const baselines = {};
  if (Object.keys(baselineRoutes).length > 0) {
    process.stderr.write(`bench: node:http baseline (${Object.keys(baselineRoutes)})...\n`);
    Object.assign(baselines, await baselineBench(baselineRoutes, options.http));
  }
  if (only.has('durable')) {
    const { connections } = options.durable;
    process.stderr.write(`bench: node:http baseline (durable, ${connections} connections)...\n`);
    Object.assign(baselines, await baselineBench({ durable: TOOL_RUN }, options.durable));
  }

  // The bare Nest app answers the agent run's request too: the framework's own cost of a POST
  // with a validated body, beside a run that also records, leases and answers it.
  const nestRoutes = pick({ http: INFO, tools: TOOL_CALL, agent: AGENT_RUN }, options.only);
  const nest = {};
  if (Object.keys(nestRoutes).length > 0) {
    process.stderr.write(`bench: bare Nest baseline (${Object.keys(nestRoutes)})...\n`);
    Object.assign(nest, await baselineBench(nestRoutes, options.http, startNestBaseline));
  }

  const gatewayRoutes = pick({ http: INFO, tools: TOOL_CALL }, options.only);
  if (Object.keys(gatewayRoutes).length > 0) {
    process.stderr.write(`bench: gateway HTTP (${Object.keys(gatewayRoutes)})...\n`);
    Object.assign(
      results,
      await httpBench(gatewayRoutes, { baselines, nest }, options.http, tmpDir),
    );
    for (const part of Object.keys(gatewayRoutes)) {
      console.log(`\n${httpReport(results[part], options.http)}`);
    }
    console.log();
  }

  if (only.has('agent')) {
    process.stderr.write(`bench: agent runs (${options.agent.backends.join(', ')})...\n`);
    results.agent = await agentBench(baselines.agent, nest.agent, options.agent, tmpDir);
    console.log(`${agentReport(results.agent, options.agent)}\n`);
  }

  if (only.has('durable')) {
    process.stderr.write(`bench: durable runs with a tool call (${options.agent.backends})...\n`);
    results.durable = await durableBench(baselines.durable, options.durable, tmpDir);
    console.log(`${durableReport(results.durable, options.durable)}\n`);
  }

  if (only.has('latency')) {
    process.stderr.write('bench: model call latency (mock model, then gateway)...\n');
    results.latency = await latencyBench(options.latency, tmpDir);
    console.log(`${latencyReport(results.latency, options.latency)}\n`);
  }

  if (only.has('state')) {
    process.stderr.write(`bench: state backend (${options.state.backends.join(', ')})...\n`);
    results.state = await stateBench(options.state, tmpDir);
    console.log(`${stateReport(results.state, options.state)}\n`);
  }

  if (only.has('tracing')) {
    process.stderr.write('bench: tracing cost (in-memory spans vs OTEL_SDK_DISABLED)...\n');
    results.tracing = await tracingBench(options.http, tmpDir);
    console.log(`${tracingReport(results.tracing, options.http)}\n`);
  }

  if (only.has('graph')) {
    process.stderr.write('bench: graph runs (3-step pipeline vs plain run, sqlite)...\n');
    results.graph = await graphBench(options.http, tmpDir);
    console.log(`${graphReport(results.graph, options.http)}\n`);
  }

  if (only.has('wires')) {
    process.stderr.write('bench: agent wires (REST, OpenAI-compatible, A2A; sqlite)...\n');
    results.wires = await wiresBench(options.http, tmpDir);
    console.log(`${wiresReport(results.wires, options.http)}\n`);
  }

  if (only.has('stream')) {
    process.stderr.write('bench: live runs (time to first token, fan-out to 100 followers)...\n');
    results.stream = await streamBench(options.stream, tmpDir);
    console.log(`${streamReport(results.stream)}\n`);
  }

  if (only.has('memory')) {
    process.stderr.write('bench: memory (idle RSS of each server, gateway under mixed load)...\n');
    results.memory = await memoryBench(options.memory, tmpDir);
    console.log(`${memoryReport(results.memory, options.memory)}\n`);
  }

  if (only.has('start')) {
    process.stderr.write(`bench: start time (${options.start.runs} fresh starts each)...\n`);
    results.start = await startBench(options.start, tmpDir);
    console.log(`${startReport(results.start)}\n`);
  }

  if (only.has('counts')) {
    process.stderr.write(`bench: async resources per request (${options.counts.runs} each)...\n`);
    results.counts = await countsBench(options.counts, tmpDir);
    console.log(`${countsReport(results.counts)}\n`);
  }

  if (only.has('soak')) {
    process.stderr.write(`bench: live heap soak (${options.soak.seconds} s, in-process)...\n`);
    // Imported only here: it loads the whole gateway into this process.
    const { soakBench } = await import('./soak.bench.mjs');
    results.soak = await soakBench(options.soak, tmpDir);
    console.log(`${soakReport(results.soak)}\n`);
  }

  if (only.has('ab')) {
    process.stderr.write(`bench: before and after in turns (${options.ab.backends})...\n`);
    results.ab = await abBench(options.ab, tmpDir);
    console.log(`${abReport(results.ab, options.ab)}\n`);
  }

  for (const warning of warnings(results)) console.log(warning);
  const goals = goalVerdicts(results, options);
  if (goals.length > 0) console.log(`${goalsReport(goals)}\n`);
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `--- bench summary (JSON) ---\n${jsonSummary(options, { seconds, ...results, goals })}`,
  );
} catch (error) {
  if (!isStopping())
    console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
  exitCode = 1;
} finally {
  await cleanupAll();
}
// Exit explicitly: a driver handle left open must not keep the runner alive.
process.exit(exitCode);
