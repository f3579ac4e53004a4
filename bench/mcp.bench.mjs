/**
 * MCP host: tools/call req/s and CPU per call through `svc serve` (a child process): the
 * built-in `echo` over 2025 stateless POSTs, within one session, and over the 2026-07-28
 * revision; an HTTP tool (its endpoint the baseline server) over 2025 stateless and 2026-07-28;
 * all against the raw node:http baseline answering the same POST, plus the same call through
 * REST for scale. Then heap used across BENCH_MCP_CALLS calls of `echo` in each mode, and across
 * BENCH_MCP_TOOL_CALLS calls of the HTTP tool and of the upstream tool (2026-07-28; fewer, since
 * each costs a second exchange and the upstream's own time). Standalone:
 *   npm run build && node bench/mcp.bench.mjs
 * Settings: BENCH_DURATION (5 s), BENCH_WARMUP (1 s), BENCH_CONNECTIONS (10),
 * BENCH_MCP_CALLS (100000), BENCH_MCP_STEP (20000), BENCH_MCP_TOOL_CALLS (40000),
 * BENCH_MCP_TOOL_STEP (10000).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanupAll, cleanupOnSignals, isStopping, onCleanup } from './lib/cleanup.mjs';
import { measureHttp } from './lib/http-load.mjs';
import { heapProbe } from './lib/mcp-heap.mjs';
import { heapGrowth, heapReport, jsonSummary, throughputReport } from './lib/mcp-report.mjs';
import {
  HTTP_TOOL,
  UPSTREAM_ARGUMENTS,
  UPSTREAM_TOOL,
  baselineRequest,
  modernRequest,
  registerHttpTool,
  registerUpstream,
  restRequest,
  sessionRequest,
  statelessRequest,
} from './lib/mcp-requests.mjs';
import { expectToolResult, openSession } from './lib/mcp-session.mjs';
import { startEverything, startMcpBaseline, startMcpGateway } from './lib/mcp-targets.mjs';

function setting(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number (got ${raw})`);
  return value;
}

const options = {
  seconds: setting('BENCH_DURATION', 5),
  warmupSeconds: setting('BENCH_WARMUP', 1),
  connections: Math.round(setting('BENCH_CONNECTIONS', 10)),
  heapCalls: Math.round(setting('BENCH_MCP_CALLS', 100_000)),
  heapStep: Math.round(setting('BENCH_MCP_STEP', 20_000)),
  toolHeapCalls: Math.round(setting('BENCH_MCP_TOOL_CALLS', 40_000)),
  toolHeapStep: Math.round(setting('BENCH_MCP_TOOL_STEP', 10_000)),
};
const load = {
  connections: options.connections,
  seconds: options.seconds,
  warmupSeconds: options.warmupSeconds,
};

/** Measures each { name, route, request(base) } against one started target, then stops it. */
async function measureTarget(target, cases) {
  const rows = [];
  try {
    for (const { name, route, request } of cases) {
      const built = await request(target.base);
      if (name !== 'baseline') await expectToolResult(name, built);
      process.stderr.write(`bench: ${name}...\n`);
      rows.push({
        name,
        route,
        result: await measureHttp({ request: built, pid: target.child.pid, ...load }),
      });
    }
  } finally {
    await target.child.stop();
  }
  return rows;
}

cleanupOnSignals();
let exitCode = 0;
try {
  const tmpDir = await mkdtemp(join(tmpdir(), 'svc-bench-mcp-'));
  onCleanup(() => rm(tmpDir, { recursive: true, force: true }));
  // The HTTP tool's endpoint, up for the whole run (the measured baseline is a second one).
  const toolEndpoint = await startMcpBaseline();
  onCleanup(() => toolEndpoint.child.stop());
  const withHttpTool = (request) => async (base) => {
    await registerHttpTool(base, toolEndpoint.base);
    return request(base, HTTP_TOOL);
  };
  // The upstream MCP server, up for the whole run: measured directly, then through the gateway.
  const everything = await startEverything();
  const withUpstream = (request) => async (base) => {
    await registerUpstream(base, `${everything.base}/mcp`);
    return request(base, UPSTREAM_TOOL);
  };
  const rows = [
    ...(await measureTarget(await startMcpBaseline(), [
      { name: 'baseline', route: 'POST /mcp/ (node:http)', request: baselineRequest },
    ])),
    ...(await measureTarget(await startMcpGateway('stateless', tmpDir), [
      { name: 'mcp stateless', route: 'POST /mcp/ (2025, JSON answer)', request: statelessRequest },
      { name: 'mcp 2026-07-28', route: 'POST /mcp/ (_meta envelope)', request: modernRequest },
      {
        name: 'http tool stateless',
        route: 'POST /mcp/ (2025) → HTTP tool',
        request: withHttpTool(statelessRequest),
      },
      {
        name: 'http tool 2026-07-28',
        route: 'POST /mcp/ (2026) → HTTP tool',
        request: withHttpTool(modernRequest),
      },
      {
        name: 'upstream stateless',
        route: 'POST /mcp/ (2025) → upstream MCP',
        request: withUpstream(statelessRequest),
      },
      {
        name: 'upstream 2026-07-28',
        route: 'POST /mcp/ (2026) → upstream MCP',
        request: withUpstream(modernRequest),
      },
      { name: 'rest', route: 'POST /v1/tools/default/echo', request: restRequest },
    ])),
    ...(await measureTarget(await startMcpGateway('stateful', tmpDir), [
      {
        name: 'mcp session',
        route: 'POST /mcp/ + Mcp-Session-Id (SSE answer)',
        request: async (base) => sessionRequest(base, await openSession(base)),
      },
    ])),
    // Last: measuring a target stops it, and the gateway's upstream cases need it running.
    ...(await measureTarget(everything, [
      {
        name: 'upstream direct',
        route: 'server-everything echo, in a session',
        request: async (base) =>
          sessionRequest(base, await openSession(base), 'echo', UPSTREAM_ARGUMENTS),
      },
    ])),
  ];
  console.log(`\n${throughputReport(rows, options)}\n`);

  const heap = {};
  for (const mode of ['stateless', 'stateful', 'modern']) {
    process.stderr.write(`bench: heap over ${options.heapCalls} calls (${mode})...\n`);
    heap[mode] = await heapProbe({
      mode,
      calls: options.heapCalls,
      step: options.heapStep,
      connections: options.connections,
      tmpDir,
    });
  }
  console.log(`${heapReport(heap, options)}\n`);

  // The tools that reach out: an HTTP tool (the endpoint above) and an upstream MCP tool (a
  // server-everything of its own: the measured one was stopped with its target).
  const heapUpstream = await startEverything();
  onCleanup(() => heapUpstream.child.stop());
  const toolHeap = {};
  const reaching = [
    ['http tool', HTTP_TOOL, (base) => registerHttpTool(base, toolEndpoint.base)],
    ['upstream', UPSTREAM_TOOL, (base) => registerUpstream(base, `${heapUpstream.base}/mcp`)],
  ];
  for (const [name, tool, prepare] of reaching) {
    process.stderr.write(`bench: heap over ${options.toolHeapCalls} calls (${name})...\n`);
    toolHeap[`${name} 2026-07-28`] = await heapProbe({
      mode: 'modern',
      tool,
      prepare,
      calls: options.toolHeapCalls,
      step: options.toolHeapStep,
      connections: options.connections,
      tmpDir,
    });
  }
  console.log(`${heapReport(toolHeap, options)}\n`);

  const throughput = Object.fromEntries(
    rows.map(({ name, route, result }) => [name, { route, ...result }]),
  );
  const allHeap = { ...heap, ...toolHeap };
  const growth = Object.fromEntries(
    Object.entries(allHeap).map(([mode, samples]) => [mode, heapGrowth(samples)]),
  );
  console.log(
    `--- bench summary (JSON) ---\n${jsonSummary(options, { throughput, heap: allHeap, heapGrowth: growth })}`,
  );
} catch (error) {
  if (!isStopping())
    console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
  exitCode = 1;
} finally {
  await cleanupAll();
}
process.exit(exitCode);
