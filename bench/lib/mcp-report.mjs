/** Tables and the JSON summary of the MCP bench. */
import { cpus } from 'node:os';
import { fixed, ratio, renderTable } from './table.mjs';

const times = (value, digits) => (Number.isFinite(value) ? `${value.toFixed(digits)}x` : 'n/a');

export function throughputReport(rows, options) {
  const baseline = rows.find((row) => row.name === 'baseline').result;
  const cells = rows.map(({ name, route, result: r }) => [
    name,
    route,
    fixed(r.reqPerSec, 0),
    fixed(r.p50Ms, 3),
    fixed(r.p99Ms, 3),
    fixed(r.cpuUsPerReq, 1),
    times(ratio(r.reqPerSec, baseline.reqPerSec), 3),
    times(ratio(r.cpuUsPerReq, baseline.cpuUsPerReq), 2),
    String(r.non2xx + r.errors + r.timeouts),
  ]);
  return [
    `MCP tools/call (echo): ${options.connections} connections, ${options.seconds} s after ` +
      `${options.warmupSeconds} s warmup, each server a child process`,
    renderTable(
      [
        'target',
        'route',
        'req/s',
        'p50 ms',
        'p99 ms',
        'CPU us/req',
        'req/s vs base',
        'CPU vs base',
        'failed',
      ],
      cells,
    ),
  ].join('\n');
}

/** Growth after the first step, which also pays for JIT and first-use caches. */
export function heapGrowth(samples) {
  const warm = samples[1] ?? samples[0];
  const last = samples.at(-1);
  const calls = last.calls - warm.calls;
  return {
    fromCalls: warm.calls,
    toCalls: last.calls,
    mb: last.heapMb - warm.heapMb,
    bytesPerCall: calls > 0 ? ((last.heapMb - warm.heapMb) * 2 ** 20) / calls : NaN,
  };
}

export function heapReport(heap, options) {
  const modes = Object.keys(heap);
  const rows = heap[modes[0]].map((sample, i) => [
    String(sample.calls),
    ...modes.map((mode) => fixed(heap[mode][i].heapMb, 2)),
  ]);
  const growth = modes.map((mode) => {
    const g = heapGrowth(heap[mode]);
    return `${mode}: ${fixed(g.mb, 2)} MB from ${g.fromCalls} to ${g.toCalls} calls (${fixed(g.bytesPerCall, 1)} bytes/call)`;
  });
  return [
    `Heap used after a full GC, in-process gateway, ${options.connections} connections`,
    renderTable(['calls', ...modes.map((mode) => `${mode} MB`)], rows),
    ...growth,
  ].join('\n');
}

export function jsonSummary(options, results) {
  const round = (value) => {
    if (typeof value === 'number') {
      return Number.isFinite(value) && !Number.isInteger(value)
        ? Number(value.toPrecision(4))
        : value;
    }
    if (Array.isArray(value)) return value.map(round);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, round(item)]));
    }
    return value;
  };
  const document = {
    at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    options,
    ...results,
  };
  return JSON.stringify(round(document), null, 2);
}
