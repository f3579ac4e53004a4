/**
 * The performance issue's goals: each a target on one figure of one part, judged against the
 * baseline measured in the same run, and printed as one verdict line in the `--- goals ---` block
 * (and the JSON summary). A goal is judged only when its part ran, and for a backend only when
 * that backend was measured; a figure from a measurement with failed requests is `not valid`.
 */
import { fixed } from './table.mjs';

/**
 * Durable runs on PostgreSQL before the performance work, in runs/s, when no before-build is
 * measured in the run: the figure the performance issue states (647 runs/s for an echo agent run
 * on PostgreSQL), not a measurement of this bench, and of another request (a one-turn run at 10
 * connections). The goal's proper baseline is BENCH_BEFORE_ROOT: a build of the code before the
 * work, measured in the same run on the same request (see bench/README.md).
 * BENCH_DURABLE_BEFORE_RUNS_PER_SEC overrides the constant.
 */
export const DURABLE_BEFORE_RUNS_PER_SEC = 647;

/** The connections the durable goal is set at. */
const DURABLE_GOAL_CONNECTIONS = 32;

/** Live heap growth over the soak that still counts as flat: either bound is enough. */
const SOAK_TOLERANCE = { mb: 2, ratio: 0.03 };

const x = (value) => `${fixed(value, 2)}×`;
const us = (measurement) => fixed(measurement.cpuUsPerReq, 1);
const mb = (value) => `${fixed(value, 1)} MB`;

/** `name` of the CPU ratio of `measured` over `base` (each a measureHttp result). */
function cpuDetail(measured, base, measuredName, baseName) {
  return `(${measuredName} ${us(measured)} vs ${baseName} ${us(base)} us/req)`;
}

/**
 * Each goal: `figure(results)` the value judged (undefined when its part did not run), `atMost`
 * or `atLeast` the target (or `judge(value, results)`), `show` the figure and its baseline for
 * the line, and `sources` the HTTP measurements whose failed requests invalidate it.
 */
const GOALS = [
  {
    name: 'GET /info CPU ≤ 1.3× bare Nest',
    atMost: 1.3,
    figure: (r) => r.http?.gatewayOverNest.cpuUsPerReq,
    show: (v, r) => `${x(v)} ${cpuDetail(r.http.gateway, r.http.nest, 'gateway', 'bare Nest')}`,
    sources: (r) => [r.http.gateway, r.http.nest],
  },
  {
    name: 'GET /info CPU ≤ 10× node:http',
    atMost: 10,
    figure: (r) => r.http?.gatewayOverBaseline.cpuUsPerReq,
    show: (v, r) => `${x(v)} ${cpuDetail(r.http.gateway, r.http.baseline, 'gateway', 'node:http')}`,
    sources: (r) => [r.http.gateway, r.http.baseline],
  },
  {
    name: 'tool call CPU ≤ 12× node:http',
    atMost: 12,
    figure: (r) => r.tools?.gatewayOverBaseline.cpuUsPerReq,
    show: (v, r) =>
      `${x(v)} ${cpuDetail(r.tools.gateway, r.tools.baseline, 'gateway', 'node:http')}`,
    sources: (r) => [r.tools.gateway, r.tools.baseline],
  },
  ...[
    ['sqlite', 15],
    ['postgres', 25],
  ].map(([backend, limit]) => ({
    name: `echo agent run (${backend}) CPU ≤ ${limit}× node:http`,
    atMost: limit,
    figure: (r) => r.agent?.[backend]?.plainOverBaseline.cpuUsPerReq,
    show: (v, r) => {
      const { plain, floor, floorOverBaseline } = r.agent[backend];
      return (
        `${x(v)} ${cpuDetail(plain, r.agent.baseline, 'run', 'node:http')}; ` +
        `durable floor ${us(floor)} us/req, ${x(floorOverBaseline.cpuUsPerReq)} node:http`
      );
    },
    sources: (r) => [r.agent[backend].plain, r.agent.baseline, r.agent[backend].floor],
  })),
  {
    name: `durable run (postgres, c=${DURABLE_GOAL_CONNECTIONS}) runs/s ≥ 2× before`,
    atLeast: 2,
    figure: (r, o) => {
      const measured = r.durable?.postgres;
      if (!measured) return undefined;
      return measured.plain.reqPerSec / (measured.before?.reqPerSec ?? o.before);
    },
    show: (v, r, o) => {
      const measured = r.durable.postgres;
      const before = measured.before
        ? `${fixed(measured.before.reqPerSec, 0)} runs/s before, measured in this run`
        : `${o.before} runs/s before, the issue's figure (no BENCH_BEFORE_ROOT)`;
      const at =
        o.durableConnections === DURABLE_GOAL_CONNECTIONS
          ? ''
          : `; measured at c=${o.durableConnections}, not ${DURABLE_GOAL_CONNECTIONS}`;
      return `${x(v)} (${fixed(measured.plain.reqPerSec, 0)} runs/s vs ${before}${at})`;
    },
    sources: (r) => [
      r.durable.postgres.plain,
      ...(r.durable.postgres.before ? [r.durable.postgres.before] : []),
    ],
  },
  ...[
    ['p50', 0.5],
    ['p99', 3],
  ].map(([p, limit]) => ({
    name: `model call latency added ${p} ≤ ${limit} ms (c=1)`,
    atMost: limit,
    figure: (r) => r.latency?.added[`${p}Ms`],
    show: (v, r) =>
      `+${fixed(v, 3)} ms (gateway ${fixed(r.latency.gateway[`${p}Ms`], 3)} vs ` +
      `direct ${fixed(r.latency.direct[`${p}Ms`], 3)} ms; durable floor ` +
      `+${fixed(r.latency.floorAdded[`${p}Ms`], 3)} ms; work after an idle wait ` +
      `${x(r.latency.idleWake.ratio)} here)`,
    sources: (r) => [r.latency.gateway, r.latency.direct, r.latency.floor],
  })),
  {
    name: 'idle RSS ≤ 120 MB',
    atMost: 120,
    figure: (r) => r.memory?.idle.gateway,
    show: (v, r) =>
      `${mb(v)} (node:http ${mb(r.memory.idle.baseline)}, bare Nest ${mb(r.memory.idle.nest)}: ` +
      `${x(v / r.memory.idle.nest)})`,
    sources: () => [],
  },
  {
    name: 'RSS under mixed load ≤ 250 MB (no forced GC)',
    atMost: 250,
    figure: (r) => r.memory?.mixed.peakRssMb,
    show: (v, r) =>
      `peak ${mb(v)}, end ${mb(r.memory.mixed.endRssMb)} after ${r.memory.mixed.seconds} s ` +
      `(idle ${mb(r.memory.idle.gateway)})`,
    sources: (r) => Object.values(r.memory.mixed.load),
  },
  {
    name: `live heap growth over the soak ≤ ${SOAK_TOLERANCE.mb} MB or ${SOAK_TOLERANCE.ratio * 100}%`,
    judge: (v, r) => v <= SOAK_TOLERANCE.mb || r.soak.growthRatio <= SOAK_TOLERANCE.ratio,
    figure: (r) => r.soak?.growthMb,
    show: (v, r) =>
      `${v >= 0 ? '+' : ''}${fixed(v, 2)} MB (${fixed(r.soak.growthRatio * 100, 1)}%) ` +
      `from ${r.soak.samples[1].seconds} s to ${r.soak.seconds} s`,
    sources: (r) => Object.values(r.soak.load),
  },
  {
    name: 'start to ready ≤ 1.2 s',
    atMost: 1.2,
    figure: (r) => r.start && r.start.gateway.medianMs / 1000,
    show: (v, r) =>
      `${fixed(v, 3)} s, median of ${r.start.gateway.readyMs.length} ` +
      `(bare Nest ${fixed(r.start.nest.medianMs / 1000, 3)} s: ` +
      `${x(r.start.gateway.medianMs / r.start.nest.medianMs)}, ` +
      `node:http ${fixed(r.start.baseline.medianMs / 1000, 3)} s)`,
    sources: () => [],
  },
];

function failed(measurement) {
  return measurement.non2xx + measurement.errors + measurement.timeouts > 0;
}

function judged(goal, value, results) {
  if (goal.judge) return goal.judge(value, results);
  return goal.atMost !== undefined ? value <= goal.atMost : value >= goal.atLeast;
}

/**
 * One verdict per goal whose part ran: { goal, value, verdict (met, missed, not valid or n/a),
 * line }. `options`: the run's options (the durable "before" figure and connections).
 */
export function goalVerdicts(results, options) {
  const o = {
    before: options.goals.durableBeforeRunsPerSec,
    durableConnections: options.durable.connections,
  };
  const verdicts = [];
  for (const goal of GOALS) {
    const value = goal.figure(results, o);
    if (value === undefined) continue;
    const verdict = goal.sources(results).some(failed)
      ? 'not valid (failed requests)'
      : !Number.isFinite(value)
        ? 'n/a'
        : judged(goal, value, results)
          ? 'met'
          : 'missed';
    const line = `goal ${goal.name}: ${goal.show(value, results, o)} — ${verdict}`;
    verdicts.push({ goal: goal.name, value, verdict, line });
  }
  return verdicts;
}

/** The `--- goals ---` block. */
export function goalsReport(verdicts) {
  return ['--- goals ---', ...verdicts.map((verdict) => verdict.line)].join('\n');
}
