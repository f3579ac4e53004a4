/**
 * Work per request, counted rather than timed: the async resources (promises, timers,
 * immediates, next-tick callbacks) a gateway creates, and the sqlite statements it runs and the
 * transactions it commits, for `GET /info`, a tool call and an echo run (sqlite), each request
 * sent on its own, one at a time, after a warm-up. The gateway runs
 * with bench/lib/async-counts.mjs preloaded; it counts between two SIGUSR2 signals. On a shared
 * machine whose CPU times drift, a count shows what a change saved exactly.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AGENT_RUN, INFO, TOOL_CALL, requestFor } from './lib/routes.mjs';
import { expectOk, startGateway } from './lib/targets.mjs';

const PRELOAD = new URL('./lib/async-counts.mjs', import.meta.url).href;
const ROUTES = { 'GET /info': INFO, 'tool call': TOOL_CALL, 'echo run (sqlite)': AGENT_RUN };
/** The async_hooks types reported, in this order, and their columns; the rest sum as `other`. */
const COUNTED_TYPES = {
  PROMISE: 'promises',
  Timeout: 'timers',
  Immediate: 'immediates',
  TickObject: 'next ticks',
  'sqlite statements': 'statements',
  'sqlite commits': 'commits',
};

const untilWritten = async (path) => {
  for (let tries = 0; tries < 100; tries++) {
    try {
      return JSON.parse(await readFile(path, 'utf8'));
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  throw new Error(`counts: the gateway wrote no counts to ${path}`);
};

export async function countsBench({ runs, warmupRuns }, tmpDir) {
  const results = {};
  let n = 0;
  for (const [name, route] of Object.entries(ROUTES)) {
    const out = join(tmpDir, `counts-${n++}.json`);
    const { child, base } = await startGateway(
      `counts-${n}`,
      tmpDir,
      { BENCH_COUNTS_OUT: out },
      { nodeArgs: ['--import', PRELOAD] },
    );
    try {
      const request = requestFor(base, route);
      for (let i = 0; i < warmupRuns; i++) await expectOk(`counts ${name}`, request);
      process.kill(child.pid, 'SIGUSR2');
      for (let i = 0; i < runs; i++) await expectOk(`counts ${name}`, request);
      process.kill(child.pid, 'SIGUSR2');
      const counts = await untilWritten(out);
      const perRequest = Object.fromEntries(
        Object.entries(COUNTED_TYPES).map(([type, column]) => [column, (counts[type] ?? 0) / runs]),
      );
      const other = Object.entries(counts)
        .filter(([type]) => !(type in COUNTED_TYPES))
        .reduce((sum, [, count]) => sum + count, 0);
      results[name] = { ...perRequest, other: other / runs };
    } finally {
      await child.stop();
    }
  }
  return { runs, perRequest: results };
}
