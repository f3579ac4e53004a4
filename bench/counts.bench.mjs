/**
 * Work per request, counted rather than timed: the async resources (promises, timers,
 * immediates, next-tick callbacks) a gateway creates, and the statements it runs, the
 * transactions it commits and, on PostgreSQL, the round trips it makes (pool checkouts, one per
 * statement group), for `GET /info`, a tool call, and an echo run (with and without a run_id of
 * the caller's, as an A2A message and as a chat message whose reply is delivered) on each
 * backend, each request sent on its own, one at a time, after a warm-up. The gateway runs with bench/lib/async-counts.mjs preloaded; it counts
 * between two SIGUSR2 signals. On a shared machine whose CPU times drift, a count shows what a
 * change saved exactly.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AGENT_RUN,
  INFO,
  TOOL_CALL,
  a2aSendMessage,
  agentRunWithRunIds,
  chatMessage,
  requestFor,
} from './lib/routes.mjs';
import { expectOk, startGatewayOn, startMockModel } from './lib/targets.mjs';

const PRELOAD = new URL('./lib/async-counts.mjs', import.meta.url).href;
/** Each request counted: its route and the state backend of its gateway. */
const ROUTES = {
  'GET /info': [INFO, 'sqlite'],
  'tool call': [TOOL_CALL, 'sqlite'],
  'echo run (sqlite)': [AGENT_RUN, 'sqlite'],
  'echo run (postgres)': [AGENT_RUN, 'postgres'],
  'run with run_id (sqlite)': [agentRunWithRunIds(), 'sqlite'],
  'run with run_id (postgres)': [agentRunWithRunIds(), 'postgres'],
  'A2A SendMessage (sqlite)': [a2aSendMessage(), 'sqlite'],
  'A2A SendMessage (postgres)': [a2aSendMessage(), 'postgres'],
  'chat message (sqlite)': [chatMessage(), 'sqlite'],
  'chat message (postgres)': [chatMessage(), 'postgres'],
};
/** The chat messages' replies go to the mock's chat webhook, after each message's answer. */
const isChat = (name) => name.startsWith('chat message');
/** How long the last chat message's delivery is given before counting stops. */
const LAST_DELIVERY_MS = 300;
/**
 * What async-counts.mjs counts, in the order reported, and the column each goes in (a backend's
 * statements and commits share one); the rest of the async_hooks types sum as `other`.
 */
const COUNTED_TYPES = {
  PROMISE: 'promises',
  Timeout: 'timers',
  Immediate: 'immediates',
  TickObject: 'next ticks',
  'sqlite statements': 'statements',
  'postgres statements': 'statements',
  'sqlite commits': 'commits',
  'postgres commits': 'commits',
  'postgres checkouts': 'round trips',
  'sqlite parameter bytes': 'param bytes',
  'postgres parameter bytes': 'param bytes',
};
const COLUMNS = [...new Set(Object.values(COUNTED_TYPES))];

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

export async function countsBench({ runs, warmupRuns, pgAdminDsn }, tmpDir) {
  const results = {};
  let n = 0;
  const chat = await startMockModel();
  try {
    for (const [name, [route, backend]] of Object.entries(ROUTES)) {
      const env = isChat(name) ? { SVC_CHATA_WEBHOOK: `${chat.base}/chat-webhook` } : {};
      results[name] = await countRoute(name, route, backend, env, {
        runs,
        warmupRuns,
        pgAdminDsn,
        out: join(tmpDir, `counts-${n++}.json`),
        tmpDir,
      });
    }
  } finally {
    await chat.child.stop();
  }
  return { runs, perRequest: results };
}

/** One route's counts per request, on a gateway of its own with `env` added. */
async function countRoute(
  name,
  route,
  backend,
  env,
  { runs, warmupRuns, pgAdminDsn, out, tmpDir },
) {
  const { child, base, stop } = await startGatewayOn(
    backend,
    `counts-${name.replace(/\W+/g, '-')}`,
    tmpDir,
    { pgAdminDsn },
    { env: { ...env, BENCH_COUNTS_OUT: out }, nodeArgs: ['--import', PRELOAD] },
  );
  try {
    const request = requestFor(base, route);
    for (let i = 0; i < warmupRuns; i++) await expectOk(`counts ${name}`, request);
    process.kill(child.pid, 'SIGUSR2');
    for (let i = 0; i < runs; i++) await expectOk(`counts ${name}`, request);
    if (isChat(name)) await new Promise((resolve) => setTimeout(resolve, LAST_DELIVERY_MS));
    process.kill(child.pid, 'SIGUSR2');
    const counts = await untilWritten(out);
    const perRequest = Object.fromEntries(COLUMNS.map((column) => [column, 0]));
    for (const [type, column] of Object.entries(COUNTED_TYPES)) {
      perRequest[column] += (counts[type] ?? 0) / runs;
    }
    const other = Object.entries(counts)
      .filter(([type]) => !(type in COUNTED_TYPES))
      .reduce((sum, [, count]) => sum + count, 0);
    return { ...perRequest, other: other / runs };
  } finally {
    await stop();
  }
}
