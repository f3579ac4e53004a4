/**
 * Live runs. (1) Time to first token: a mock OpenAI-compatible endpoint streaming its answer
 * (first token at once, then one every 5 ms), asked directly with `stream: true`, against
 * POST /v1/agent/run `stream: true` through a gateway using it, to the first `model.delta`
 * event; p50/p99 at 1 and at 32 concurrent requests; the difference is what the gateway adds.
 * (2) Fan-out: 100 clients follow one run's event stream (GET /v1/runs/{id}/events, from its
 * first event to run.settled) on a gateway whose echo provider streams a long answer word by
 * word, against a bare node:http SSE server sending the same number of events to 100 clients.
 */
import { randomUUID } from 'node:crypto';
import { countEvents, timeToFirst } from './lib/sse-load.mjs';
import { latencySummary } from './lib/stats.mjs';
import { API_KEY, TENANT } from './lib/routes.mjs';
import { ratio } from './lib/table.mjs';
import { startGateway, startMockModel, startTarget } from './lib/targets.mjs';

const AUTH = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
const SUBSCRIBERS = 100;
const FANOUT_WORDS = 2000;

/** Runs `op` `total` times with `concurrency` in flight; answers the latencies. */
async function repeat(op, total, concurrency) {
  const latencies = [];
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started += 1;
      latencies.push(await op());
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return latencySummary(latencies);
}

async function timeToFirstToken(gatewayBase, mockBase, requests) {
  const direct = {
    url: `${mockBase}/v1/chat/completions`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'mock-model',
      stream: true,
      messages: [{ role: 'user', content: 'hello' }],
    }),
  };
  const viaGateway = () => ({
    url: `${gatewayBase}/v1/agent/run`,
    headers: AUTH,
    body: JSON.stringify({
      tenant_id: TENANT,
      prompt: 'hello',
      stream: true,
      run_id: randomUUID(),
    }),
  });
  const rows = {};
  for (const concurrency of [1, 32]) {
    const total = Math.max(requests, concurrency * 4);
    await repeat(() => timeToFirst(direct, '"content"'), concurrency, concurrency); // warm-up
    await repeat(() => timeToFirst(viaGateway(), 'event: model.delta'), concurrency, concurrency);
    const d = await repeat(() => timeToFirst(direct, '"content"'), total, concurrency);
    const g = await repeat(
      () => timeToFirst(viaGateway(), 'event: model.delta'),
      total,
      concurrency,
    );
    rows[`c${concurrency}`] = {
      requests: total,
      direct: d,
      gateway: g,
      added: { p50Ms: g.p50Ms - d.p50Ms, p99Ms: g.p99Ms - d.p99Ms },
    };
  }
  return rows;
}

/** 100 followers of one run, from its first event to its last; events delivered per second. */
async function gatewayFanOut(base) {
  const prompt = Array.from({ length: FANOUT_WORDS }, (_, i) => `word${i}`).join(' ');
  const started = await fetch(`${base}/v1/agent/run`, {
    method: 'POST',
    headers: AUTH,
    body: JSON.stringify({ tenant_id: TENANT, prompt, background: true }),
  });
  if (started.status !== 202) throw new Error(`fan-out: background run answered ${started.status}`);
  const { run_id: runId } = await started.json();
  const follow = {
    url: `${base}/v1/runs/${runId}/events?tenant_id=${TENANT}`,
    headers: { authorization: AUTH.authorization, accept: 'text/event-stream' },
  };
  const t0 = process.hrtime.bigint();
  const counts = await Promise.all(Array.from({ length: SUBSCRIBERS }, () => countEvents(follow)));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const events = counts.reduce((sum, n) => sum + n, 0);
  if (new Set(counts).size !== 1)
    throw new Error(`fan-out: followers saw ${[...new Set(counts)]} events`);
  return { perSubscriber: counts[0], events, seconds, eventsPerSec: events / seconds };
}

async function baselineFanOut(n) {
  const server = await startTarget(
    'sse-baseline',
    (port) => ['bench/lib/sse-baseline-server.mjs', String(port)],
    {},
  );
  try {
    const follow = { url: `${server.base}/stream?n=${n}&size=120` };
    await countEvents(follow); // warm-up
    const t0 = process.hrtime.bigint();
    const counts = await Promise.all(
      Array.from({ length: SUBSCRIBERS }, () => countEvents(follow)),
    );
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const events = counts.reduce((sum, count) => sum + count, 0);
    return { perSubscriber: n, events, seconds, eventsPerSec: events / seconds };
  } finally {
    await server.child.stop();
  }
}

export async function streamBench(options, tmpDir) {
  const mock = await startMockModel();
  try {
    const ttft = await (async () => {
      const { child, base } = await startGateway('stream-ttft', tmpDir, {
        SVC_PROVIDER_URL: `${mock.base}/v1`,
        SVC_PROVIDER_API_KEY: 'bench-provider-key',
      });
      try {
        return await timeToFirstToken(base, mock.base, options.requests);
      } finally {
        await child.stop();
      }
    })();
    const { child, base } = await startGateway('stream-fanout', tmpDir);
    try {
      const gateway = await gatewayFanOut(base);
      const baseline = await baselineFanOut(gateway.perSubscriber);
      return {
        ttft,
        fanOut: {
          subscribers: SUBSCRIBERS,
          gateway,
          baseline,
          gatewayOverBaseline: ratio(gateway.eventsPerSec, baseline.eventsPerSec),
        },
      };
    } finally {
      await child.stop();
    }
  } finally {
    await mock.child.stop();
  }
}
