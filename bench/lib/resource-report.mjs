/** The tables of the resource parts: memory (RSS), start time and the live heap soak. */
import { fixed, ratio, renderTable } from './table.mjs';

const LOAD_NAMES = { info: 'GET /info', tool: 'tool call', run: 'echo agent run' };

/** One line of each mixed-load route: requests, req/s and failures. */
function loadLines(load) {
  return Object.entries(load).map(
    ([name, r]) =>
      `  ${LOAD_NAMES[name] ?? name}: ${r.requests} requests` +
      (r.reqPerSec === undefined ? '' : ` (${fixed(r.reqPerSec, 0)}/s)`) +
      `, ${r.non2xx} non-2xx, ${r.errors} errors`,
  );
}

export function memoryReport(memory, options) {
  const { idle, mixed } = memory;
  const rows = [
    ['node:http baseline', fixed(idle.baseline, 1), '1.00x'],
    ['bare Nest + pipe', fixed(idle.nest, 1), `${fixed(ratio(idle.nest, idle.baseline), 2)}x`],
    [
      'gateway (sqlite)',
      fixed(idle.gateway, 1),
      `${fixed(ratio(idle.gateway, idle.baseline), 2)}x`,
    ],
  ];
  return [
    `Idle RSS (VmRSS), ${options.settleSeconds} s after ready`,
    renderTable(['server', 'RSS MB', '/node:http'], rows),
    `Gateway RSS under ${mixed.seconds} s of mixed load (${mixed.connections} connections per ` +
      `route, sampled every second, no forced GC): peak ${fixed(mixed.peakRssMb, 1)} MB, ` +
      `end ${fixed(mixed.endRssMb, 1)} MB, VmHWM ${fixed(mixed.hwmMb, 1)} MB`,
    ...loadLines(mixed.load),
  ].join('\n');
}

export function startReport(start) {
  const rows = [
    ['node:http baseline', start.baseline],
    ['bare Nest + pipe', start.nest],
    ['gateway (sqlite, fresh state)', start.gateway],
  ].map(([name, r]) => [name, fixed(r.medianMs, 0), r.readyMs.map((ms) => fixed(ms, 0)).join(' ')]);
  return [
    `Start time: spawn to the first 200 on /readyz (polled every ${start.pollMs} ms)`,
    renderTable(['server', 'median ms', 'each start ms'], rows),
  ].join('\n');
}

/** Columns as counts.bench.mjs names them, in its order. */
export function countsReport(counts) {
  const requests = Object.entries(counts.perRequest);
  const columns = Object.keys(requests[0][1]);
  const rows = requests.map(([name, perRequest]) => [
    name,
    ...columns.map((column) => fixed(perRequest[column], 1)),
  ]);
  return [
    `Async resources created, statements run, transactions committed, PostgreSQL round ` +
      `trips (pool checkouts) and bytes of statement parameters per request ` +
      `(${counts.runs} requests each, one at a time)`,
    renderTable(['request', ...columns], rows),
  ].join('\n');
}

export function soakReport(soak) {
  const rows = soak.samples.map((sample) => [
    String(sample.seconds),
    String(sample.requests),
    fixed(sample.heapMb, 2),
  ]);
  return [
    `Live heap soak: in-process gateway (sqlite), ${soak.seconds} s of mixed load ` +
      `(${soak.connections} connections per route), heap used after a full GC every ` +
      `${soak.stepSeconds} s`,
    renderTable(['s', 'requests', 'heap MB'], rows),
    `growth from ${soak.samples[1].seconds} s to ${soak.seconds} s: ` +
      `${fixed(soak.growthMb, 2)} MB (${fixed(soak.growthRatio * 100, 2)}%)`,
    ...loadLines(soak.load),
  ].join('\n');
}
