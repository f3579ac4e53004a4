/** The printed report: tables for people, then a JSON summary for diffing runs. */
import { cpus } from 'node:os';
import { fixed, renderTable } from './table.mjs';

const LOAD_COLUMNS = ['p50 ms', 'p99 ms', 'CPU us/req', 'requests', 'non-2xx', 'errors'];

/** The columns after req/s of one measureHttp result. */
function loadCells(r) {
  return [
    fixed(r.p50Ms, 3),
    fixed(r.p99Ms, 3),
    fixed(r.cpuUsPerReq, 1),
    r.requests,
    r.non2xx,
    r.errors,
  ];
}

function loadTitle(what, options) {
  return (
    `${what}: ${options.connections} connection${options.connections === 1 ? '' : 's'}, ` +
    `${options.seconds} s measured after ${options.warmupSeconds} s warmup`
  );
}

function times(value, digits) {
  return `${fixed(value, digits)}x`;
}

/** One gateway route against the node:http and the bare Nest baseline (parts `http`, `tools`). */
export function httpReport(http, options) {
  const rows = [
    ['baseline', 'node:http baseline'],
    ['nest', 'bare Nest + pipe'],
    ['gateway', 'gateway'],
  ].map(([name, label]) => [label, fixed(http[name].reqPerSec, 0), ...loadCells(http[name])]);
  const line = (name, { reqPerSec, cpuUsPerReq }) =>
    `gateway/${name}: req/s ${times(reqPerSec, 3)}, CPU us/req ${times(cpuUsPerReq, 2)}`;
  return [
    loadTitle(`HTTP ${http.route}`, options),
    renderTable(['server', 'req/s', ...LOAD_COLUMNS], rows),
    line('node:http', http.gatewayOverBaseline),
    line('bare Nest', http.gatewayOverNest),
  ].join('\n');
}

export function agentReport(agent, options) {
  const backends = options.backends.filter((backend) => agent[backend]);
  const rows = [
    ['node:http baseline', fixed(agent.baseline.reqPerSec, 0), ...loadCells(agent.baseline)],
    ['bare Nest + pipe', fixed(agent.nest.reqPerSec, 0), ...loadCells(agent.nest)],
  ];
  for (const backend of backends) {
    for (const [variant, label] of [
      ['plain', 'run'],
      ['runId', 'run + run_id'],
      ['floor', 'durable floor'],
    ]) {
      const r = agent[backend][variant];
      rows.push([`${backend} ${label}`, fixed(r.reqPerSec, 0), ...loadCells(r)]);
    }
  }
  const ratios = backends.map((backend) => {
    const { plainOverBaseline: base, plainOverNest: nest, runIdOverPlain: runId } = agent[backend];
    const { plainOverFloor: floor, floorOverBaseline: floorBase } = agent[backend];
    return (
      `${backend}: run/baseline runs/s ${times(base.reqPerSec, 3)}, ` +
      `CPU ${times(base.cpuUsPerReq, 2)}; run/bare Nest CPU ${times(nest.cpuUsPerReq, 2)}; ` +
      `run/durable floor CPU ${times(floor.cpuUsPerReq, 2)} (floor/baseline ` +
      `${times(floorBase.cpuUsPerReq, 2)}); ` +
      `run_id/run runs/s ${times(runId.reqPerSec, 3)}, CPU ${times(runId.cpuUsPerReq, 2)}`
    );
  });
  return [
    loadTitle(`Agent runs ${agent.route} (echo provider, 1 turn)`, options),
    renderTable(['backend', 'runs/s', ...LOAD_COLUMNS.map((c) => c.replace('/req', '/run'))], rows),
    ...ratios,
  ].join('\n');
}

export function latencyReport(latency, options) {
  const rows = [
    ['direct to mock', fixed(latency.direct.reqPerSec, 0), ...loadCells(latency.direct)],
    ['through gateway', fixed(latency.gateway.reqPerSec, 0), ...loadCells(latency.gateway)],
    ['through durable floor', fixed(latency.floor.reqPerSec, 0), ...loadCells(latency.floor)],
  ];
  const { added, gatewayOverDirect: over, floorAdded, idleWake: wake } = latency;
  return [
    loadTitle(
      `Model call latency, ${latency.route} with SVC_PROVIDER_URL=<mock> ` +
        `(model request ${latency.modelRequestBytes} bytes)`,
      options,
    ),
    renderTable(['path', 'req/s', ...LOAD_COLUMNS], rows),
    `added by the gateway: p50 +${fixed(added.p50Ms, 3)} ms (${times(over.p50Ms, 2)}), ` +
      `p99 +${fixed(added.p99Ms, 3)} ms (${times(over.p99Ms, 2)}); by the durable floor: ` +
      `p50 +${fixed(floorAdded.p50Ms, 3)} ms, p99 +${fixed(floorAdded.p99Ms, 3)} ms; ` +
      `CPU us/req is the mock's (direct), the gateway's and the floor's`,
    `after an idle wait: the same work (a SQLite commit and a JSON round trip) took ` +
      `${fixed(wake.idleUs, 1)} us after 1 ms of sleep against ${fixed(wake.busyUs, 1)} us ` +
      `back to back (${times(wake.ratio, 2)}); a run at c=1 waits twice, for its request and ` +
      `for the model's answer`,
  ].join('\n');
}

export function streamReport(stream) {
  const rows = Object.entries(stream.ttft).map(([level, r]) => [
    level,
    String(r.requests),
    fixed(r.direct.p50Ms, 2),
    fixed(r.direct.p99Ms, 2),
    fixed(r.gateway.p50Ms, 2),
    fixed(r.gateway.p99Ms, 2),
    `+${fixed(r.added.p50Ms, 2)}`,
    `+${fixed(r.added.p99Ms, 2)}`,
  ]);
  const { fanOut } = stream;
  return [
    'Time to first token: mock model streamed directly vs POST /v1/agent/run stream:true (ms)',
    renderTable(
      [
        'in flight',
        'requests',
        'direct p50',
        'direct p99',
        'gw p50',
        'gw p99',
        'added p50',
        'added p99',
      ],
      rows,
    ),
    `Fan-out: ${fanOut.subscribers} followers of one run, ${fanOut.gateway.perSubscriber} events each: ` +
      `gateway ${fixed(fanOut.gateway.eventsPerSec, 0)} events/s (${fixed(fanOut.gateway.seconds, 2)} s), ` +
      `bare node:http SSE ${fixed(fanOut.baseline.eventsPerSec, 0)} events/s ` +
      `(${fixed(fanOut.baseline.seconds, 2)} s); gateway/baseline ${times(fanOut.gatewayOverBaseline, 3)}`,
  ].join('\n');
}

export function stateReport(state, options) {
  const rows = [];
  for (const [backend, ops] of Object.entries(state)) {
    for (const [op, r] of Object.entries(ops)) {
      rows.push([
        `${backend} ${op}`,
        fixed(r.store.opsPerSec, 0),
        fixed(r.store.p50Ms, 3),
        fixed(r.store.p99Ms, 3),
        fixed(r.raw.opsPerSec, 0),
        fixed(r.raw.p50Ms, 3),
        fixed(r.raw.p99Ms, 3),
        times(r.storeOverRaw.opsPerSec, 3),
      ]);
    }
  }
  return [
    `State backend: ${options.concurrency} in flight, ` +
      `${options.seconds} s per figure after ${options.warmupSeconds} s warmup`,
    renderTable(
      [
        'backend op',
        'store ops/s',
        'p50 ms',
        'p99 ms',
        'raw ops/s',
        'p50 ms',
        'p99 ms',
        'store/raw ops/s',
      ],
      rows,
    ),
  ].join('\n');
}

export function tracingReport(tracing, options) {
  const rows = [
    ['tracing off', fixed(tracing.off.reqPerSec, 0), ...loadCells(tracing.off)],
    ['in-memory spans', fixed(tracing.memory.reqPerSec, 0), ...loadCells(tracing.memory)],
  ];
  const { reqPerSec, cpuUsPerReq } = tracing.memoryOverOff;
  return [
    loadTitle(`Tracing cost, ${tracing.route} (echo provider, 2 turns, 1 tool call)`, options),
    renderTable(['gateway', 'runs/s', ...LOAD_COLUMNS.map((c) => c.replace('/req', '/run'))], rows),
    `in-memory/off: runs/s ${times(reqPerSec, 3)}, CPU us/run ${times(cpuUsPerReq, 2)}`,
  ].join('\n');
}

export function graphReport(graph, options) {
  const rows = [
    ['plain echo run', fixed(graph.plain.reqPerSec, 0), ...loadCells(graph.plain)],
    ['3-step pipeline', fixed(graph.graph.reqPerSec, 0), ...loadCells(graph.graph)],
  ];
  const { reqPerSec, cpuUsPerReq } = graph.graphOverPlain;
  return [
    loadTitle(`Graph runs, ${graph.route} (sqlite, built-in tools)`, options),
    renderTable(['run', 'runs/s', ...LOAD_COLUMNS.map((c) => c.replace('/req', '/run'))], rows),
    `pipeline/plain: runs/s ${times(reqPerSec, 3)}, CPU us/run ${times(cpuUsPerReq, 2)}`,
  ].join('\n');
}

export function wiresReport(wires, options) {
  const rows = [
    ['POST /v1/agent/run', fixed(wires.rest.reqPerSec, 0), ...loadCells(wires.rest)],
    ['POST /v1/chat/completions', fixed(wires.openai.reqPerSec, 0), ...loadCells(wires.openai)],
    ['A2A SendMessage (JSON-RPC)', fixed(wires.a2a.reqPerSec, 0), ...loadCells(wires.a2a)],
  ];
  const line = (name, { reqPerSec, cpuUsPerReq }) =>
    `${name}/rest: runs/s ${times(reqPerSec, 3)}, CPU us/run ${times(cpuUsPerReq, 2)}`;
  return [
    loadTitle('Agent wires, one echo run each (sqlite)', options),
    renderTable(['wire', 'runs/s', ...LOAD_COLUMNS.map((c) => c.replace('/req', '/run'))], rows),
    line('openai', wires.openaiOverRest),
    line('a2a', wires.a2aOverRest),
  ].join('\n');
}

/** Every HTTP measurement in `results` with its path (`agent.sqlite.plain`). */
function* loadResults(value, path) {
  if (!value || typeof value !== 'object') return;
  if ('non2xx' in value) {
    yield [path, value];
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    yield* loadResults(item, path ? `${path}.${key}` : key);
  }
}

/** Warnings for figures that make a run invalid (failed requests). */
export function warnings(results) {
  return [...loadResults(results, '')]
    .filter(([, r]) => r.non2xx + r.errors + r.timeouts > 0)
    .map(
      ([name, r]) =>
        `WARNING: ${name} had ${r.non2xx} non-2xx responses, ` +
        `${r.errors} errors, ${r.timeouts} timeouts; its figures are not valid`,
    );
}

/** Rounds every number to 4 significant digits so run-to-run diffs stay readable. */
function rounded(value) {
  if (typeof value === 'number') {
    return Number.isFinite(value) && !Number.isInteger(value)
      ? Number(value.toPrecision(4))
      : value;
  }
  if (Array.isArray(value)) return value.map(rounded);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rounded(item)]));
  }
  return value;
}

export function jsonSummary(options, results) {
  const withoutDsn = (part) => ({ ...part, pgAdminDsn: undefined });
  return JSON.stringify(
    rounded({
      at: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      options: {
        ...options,
        agent: withoutDsn(options.agent),
        durable: withoutDsn(options.durable),
        ab: withoutDsn(options.ab),
        state: withoutDsn(options.state),
        counts: withoutDsn(options.counts),
      },
      ...results,
    }),
    null,
    2,
  );
}

export function durableReport(durable, options) {
  const backends = options.backends.filter((backend) => durable[backend]);
  const rows = [
    ['node:http baseline', fixed(durable.baseline.reqPerSec, 0), ...loadCells(durable.baseline)],
  ];
  const ratios = [];
  for (const backend of backends) {
    for (const [variant, label] of [
      ['plain', 'run'],
      ['runId', 'run + run_id'],
    ]) {
      const r = durable[backend][variant];
      rows.push([`${backend} ${label}`, fixed(r.reqPerSec, 0), ...loadCells(r)]);
      const over = durable[backend][`${variant}OverBaseline`];
      ratios.push(
        `${backend} ${label}/baseline: runs/s ${times(over.reqPerSec, 3)}, CPU ${times(over.cpuUsPerReq, 2)}`,
      );
    }
    const before = durable[backend].before;
    if (before) {
      rows.push([`${backend} run, before`, fixed(before.reqPerSec, 0), ...loadCells(before)]);
      const over = durable[backend].plainOverBefore;
      ratios.push(
        `${backend} run/before: runs/s ${times(over.reqPerSec, 3)}, CPU ${times(over.cpuUsPerReq, 2)}`,
      );
    }
  }
  return [
    loadTitle(
      `Durable runs with a tool call, ${durable.route} (echo provider, 2 turns; ` +
        'connections: BENCH_DURABLE_CONNECTIONS, baseline at the same)',
      options,
    ),
    renderTable(['backend', 'runs/s', ...LOAD_COLUMNS.map((c) => c.replace('/req', '/run'))], rows),
    ...ratios,
  ].join('\n');
}

/** The `ab` part: each build's medians per backend and request, and after/before. */
export function abReport(ab, options) {
  const rows = [];
  const ratios = [];
  for (const backend of options.backends.filter((name) => ab[name])) {
    for (const [name, measured] of Object.entries(ab[backend])) {
      for (const build of ['before', 'after']) {
        const r = measured[build];
        rows.push([
          `${backend} ${name}, ${build}`,
          fixed(r.reqPerSec, 0),
          fixed(r.p50Ms, 3),
          fixed(r.cpuUsPerReq, 1),
          `${fixed(r.cpuMin, 1)}-${fixed(r.cpuMax, 1)}`,
        ]);
      }
      const over = measured.afterOverBefore;
      ratios.push(
        `${backend} ${name} after/before: req/s ${times(over.reqPerSec, 3)}, CPU ${times(over.cpuUsPerReq, 3)}`,
      );
    }
  }
  return [
    loadTitle(
      `Before (${ab.beforeRoot}) and after, in turns: median of ${ab.rounds} rounds each`,
      options,
    ),
    renderTable(['backend, request, build', 'req/s', 'p50 ms', 'CPU us/req', 'CPU range'], rows),
    ...ratios,
  ].join('\n');
}
