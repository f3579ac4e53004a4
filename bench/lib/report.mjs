/** The printed report: tables for people, then a JSON summary for diffing runs. */
import { cpus } from 'node:os';
import { fixed, renderTable } from './table.mjs';

export function httpReport(http, options) {
  const rows = ['baseline', 'gateway'].map((name) => {
    const r = http[name];
    return [
      name,
      fixed(r.reqPerSec, 0),
      fixed(r.p50Ms, 3),
      fixed(r.p99Ms, 3),
      fixed(r.cpuUsPerReq, 1),
      r.requests,
      r.non2xx,
      r.errors,
    ];
  });
  const { reqPerSec, cpuUsPerReq } = http.gatewayOverBaseline;
  return [
    `HTTP ${http.route}: ${options.connections} connections, ` +
      `${options.seconds} s measured after ${options.warmupSeconds} s warmup`,
    renderTable(
      ['server', 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'requests', 'non-2xx', 'errors'],
      rows,
    ),
    `gateway/baseline: req/s ${fixed(reqPerSec, 3)}x, CPU us/req ${fixed(cpuUsPerReq, 2)}x`,
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
        `${fixed(r.storeOverRaw.opsPerSec, 3)}x`,
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

/** Warnings for figures that make a run invalid (failed requests). */
export function warnings(http) {
  if (!http) return [];
  return ['baseline', 'gateway']
    .filter((name) => http[name].non2xx + http[name].errors + http[name].timeouts > 0)
    .map(
      (name) =>
        `WARNING: ${name} had ${http[name].non2xx} non-2xx responses, ` +
        `${http[name].errors} errors, ${http[name].timeouts} timeouts; its figures are not valid`,
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
  return JSON.stringify(
    rounded({
      at: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      options: { http: options.http, state: { ...options.state, pgAdminDsn: undefined } },
      ...results,
    }),
    null,
    2,
  );
}
