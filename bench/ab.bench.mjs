/**
 * Before and after, in turns (`BENCH_ONLY=ab`, needs BENCH_BEFORE_ROOT): a gateway built from that
 * checkout and this checkout's gateway, started once per state backend and warmed up, then
 * measured in turns on a tool call, an echo run, a streamed echo run, an echo run with a new
 * caller-chosen run_id each time and a chat message (its reply delivered to the mock's chat
 * webhook), BENCH_AB_ROUNDS rounds with the order swapped every round, so
 * a machine whose speed drifts moves both alike. Each figure is the median of its rounds. Measuring one build after the other would compare two
 * moments of the machine as well.
 */
import { measureHttp, warmUp } from './lib/http-load.mjs';
import {
  AGENT_RUN,
  STREAMED_RUN,
  TOOL_CALL,
  agentRunWithRunIds,
  chatMessage,
  requestFor,
} from './lib/routes.mjs';
import { median } from './lib/stats.mjs';
import { loadRatios } from './lib/table.mjs';
import { expectOk, startGatewayOn, startMockModel } from './lib/targets.mjs';

/** What `ab` measures on each backend: the request a change to the hot path shows in. */
export const AB_ROUTES = {
  'tool call': TOOL_CALL,
  'echo run': AGENT_RUN,
  'streamed run': STREAMED_RUN,
  'run with run_id': agentRunWithRunIds(),
  'chat message': chatMessage(),
};

/** The medians of `rounds` (measureHttp results) and the spread of their CPU per request. */
function summary(rounds) {
  const cpu = rounds.map((r) => r.cpuUsPerReq);
  return {
    reqPerSec: median(rounds.map((r) => r.reqPerSec)),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    cpuUsPerReq: median(cpu),
    cpuMin: Math.min(...cpu),
    cpuMax: Math.max(...cpu),
    rounds,
  };
}

async function benchBackend(backend, options, tmpDir) {
  const builds = [];
  const chat = await startMockModel();
  try {
    const env = { SVC_CHATA_WEBHOOK: `${chat.base}/chat-webhook` };
    const targets = { before: { cwd: options.beforeRoot, env }, after: { env } };
    for (const [build, target] of Object.entries(targets)) {
      const name = `ab-${build}-${backend}`;
      builds.push({ build, ...(await startGatewayOn(backend, name, tmpDir, options, target)) });
    }
    const requests = (base) => Object.values(AB_ROUTES).map((route) => requestFor(base, route));
    for (const { build, base } of builds) {
      for (const request of requests(base)) await expectOk(`ab ${build} ${backend}`, request);
      await warmUp(requests(base), options);
    }
    const measured = Object.fromEntries(
      Object.keys(AB_ROUTES).map((name) => [name, { before: [], after: [] }]),
    );
    for (let round = 0; round < options.rounds; round++) {
      for (const [name, route] of Object.entries(AB_ROUTES)) {
        const order = round % 2 === 0 ? builds : [...builds].reverse();
        for (const { build, child, base } of order) {
          const request = requestFor(base, route);
          measured[name][build].push(await measureHttp({ request, pid: child.pid, ...options }));
        }
      }
    }
    return Object.fromEntries(
      Object.entries(measured).map(([name, { before, after }]) => {
        const [b, a] = [summary(before), summary(after)];
        const afterOverBefore = loadRatios(a, b);
        return [name, { before: b, after: a, afterOverBefore }];
      }),
    );
  } finally {
    for (const { stop } of builds) await stop();
    await chat.child.stop();
  }
}

export async function abBench(options, tmpDir) {
  if (!options.beforeRoot) {
    throw new Error('the ab part compares two builds: set BENCH_BEFORE_ROOT to a built checkout');
  }
  const results = { beforeRoot: options.beforeRoot, rounds: options.rounds };
  for (const backend of options.backends) {
    results[backend] = await benchBackend(backend, options, tmpDir);
  }
  return results;
}
