import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { StepState } from '../src/runs/graph/graph-run-state.js';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { BACKENDS } from './support/backends.js';
import { MockModel, completion } from './support/mock-model.js';
import { gatewayForSuite } from './support/suite.js';
import {
  registerRouteTool,
  type ReceivedCall,
  type ToolEndpoint,
  startToolEndpoint,
} from './support/tool-endpoint.js';

const KEY = 'graph-runs-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';

let endpoint: ToolEndpoint;
beforeAll(async () => {
  endpoint = await startToolEndpoint();
});
afterAll(() => endpoint.close());

const stepsOf = (body: unknown): StepState[] => (body as RunRecord).graph?.steps ?? [];

/** The calls the tool endpoint received on one route. */
const callsTo = (route: string): ReceivedCall[] =>
  endpoint.received.filter((call) => call.path === route);

describe.each(BACKENDS)('graph runs (%s)', (backend) => {
  const model = new MockModel();
  beforeAll(() => model.start());
  afterAll(() => model.close());
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: KEY,
    SVC_PROVIDER_URL: `${model.url}/v1`,
  }));

  const http = () => request(gateway.url);
  const registerTool = (name: string, route: string) =>
    registerRouteTool(endpoint, gateway.url, auth, { tenant: TENANT, name, route });
  const registerAgent = (name: string, body: Record<string, unknown>) =>
    http()
      .put(`/v1/agents/${name}`)
      .set(auth)
      .send({ tenant_id: TENANT, ...body })
      .expect(200);
  const run = (agent: string, extra: Record<string, unknown> = {}) =>
    http()
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, agent, prompt: 'order 7', ...extra });
  const step = (id: string, tool: string, extra: Record<string, unknown> = {}) => ({
    id,
    kind: 'tool',
    tool,
    toolset: 'ops',
    ...extra,
  });

  beforeAll(async () => {
    await registerTool('record', '/echo');
    await registerTool('nap', '/sleep/400');
    await registerTool('broken', '/fail');
  });

  it('runs a pipeline one step at a time in dependency order, feeding outputs forward', async () => {
    endpoint.received.length = 0;
    await registerAgent('chain', {
      topology: 'pipeline',
      steps: [
        // Declared out of order: dependencies decide.
        step('last', 'record', {
          depends_on: ['middle'],
          arguments: { seen: '{{steps.middle.output.slept}}' },
        }),
        step('first', 'record', { arguments: { q: '{{input}}' } }),
        step('middle', 'nap', {
          depends_on: ['first'],
          arguments: { from: '{{steps.first.output}}' },
        }),
      ],
    });
    const res = await run('chain').expect(200);
    expect(res.body).toMatchObject({ agent: 'chain', status: 'completed', finish_reason: 'stop' });
    expect(res.body.tool_calls).toBe(3);
    expect(endpoint.received.map((call) => call.path)).toEqual(['/echo', '/sleep/400', '/echo']);
    const [first, middle, last] = endpoint.received;
    expect(first.body).toEqual({ q: 'order 7' });
    expect(middle.body).toEqual({ from: { received: { q: 'order 7' } } });
    expect(last.body).toEqual({ seen: 400 });
    // One at a time: each call was answered before the next one arrived.
    expect(middle.receivedAt).toBeGreaterThanOrEqual(first.answeredAt ?? Infinity);
    expect(last.receivedAt).toBeGreaterThanOrEqual(middle.answeredAt ?? Infinity);
    expect(JSON.parse((res.body as RunRecord).text)).toEqual({ received: { seen: 400 } });

    const view = await http().get(`/v1/runs/${res.body.run_id}?tenant_id=${TENANT}`).set(auth);
    expect(stepsOf(view.body).map((s) => [s.id, s.status, s.runs])).toEqual([
      ['last', 'completed', 1],
      ['first', 'completed', 1],
      ['middle', 'completed', 1],
    ]);
    expect(view.body.graph.steps[2].output).toEqual({
      slept: 400,
      received: { from: { received: { q: 'order 7' } } },
    });
  });

  it('runs independent steps of a parallel graph at the same time and joins them', async () => {
    endpoint.received.length = 0;
    await registerAgent('fan', {
      topology: 'parallel',
      steps: [
        step('left', 'nap'),
        step('right', 'nap'),
        step('join', 'record', {
          depends_on: ['left', 'right'],
          arguments: { l: '{{steps.left.output.slept}}', r: '{{steps.right.output.slept}}' },
        }),
      ],
    });
    const res = await run('fan').expect(200);
    expect(res.body.status).toBe('completed');
    const naps = callsTo('/sleep/400');
    expect(naps).toHaveLength(2);
    // The second nap started before the first one was answered: they overlapped.
    expect(Math.max(naps[0].receivedAt, naps[1].receivedAt)).toBeLessThan(
      Math.min(naps[0].answeredAt ?? 0, naps[1].answeredAt ?? 0),
    );
    const [join] = callsTo('/echo');
    expect(join.body).toEqual({ l: 400, r: 400 });
    expect(join.receivedAt).toBeGreaterThanOrEqual(
      Math.max(naps[0].answeredAt ?? Infinity, naps[1].answeredAt ?? Infinity),
    );
  });

  it('stops the dependants of a failed step, finishes independent branches and reports the failure', async () => {
    endpoint.received.length = 0;
    await registerAgent('fragile', {
      topology: 'parallel',
      steps: [
        step('bad', 'broken'),
        step('after_bad', 'record', { depends_on: ['bad'] }),
        step('then', 'record', { depends_on: ['after_bad'] }),
        step('good', 'record', { arguments: { ok: true } }),
      ],
    });
    const res = await run('fragile').expect(200);
    expect(res.body).toMatchObject({ status: 'failed', finish_reason: 'error' });
    const steps = Object.fromEntries(stepsOf(res.body).map((s) => [s.id, s]));
    expect(steps.bad.status).toBe('failed');
    expect(steps.bad.error).toBe('tool endpoint unreachable');
    expect(steps.after_bad.status).toBe('skipped');
    expect(steps.then.status).toBe('skipped');
    expect(steps.good.status).toBe('completed');
    expect(callsTo('/echo').map((call) => call.body)).toEqual([{ ok: true }]);
  });

  it('fails a step whose references would expand past 1 MiB, without calling its tool', async () => {
    endpoint.received.length = 0;
    // 34 characters that stand for 60,000: 20,000 of them would be 1.2 GB of arguments.
    const reference = '{{steps.first.output.received.q}}';
    await registerAgent('amplifier', {
      topology: 'pipeline',
      steps: [
        step('first', 'record', { arguments: { q: '{{input}}' } }),
        step('second', 'record', {
          depends_on: ['first'],
          arguments: { many: reference.repeat(20_000) },
        }),
      ],
    });
    const res = await run('amplifier', { prompt: 'x'.repeat(60_000) }).expect(200);
    expect(res.body).toMatchObject({ status: 'failed', finish_reason: 'error' });
    const second = stepsOf(res.body).find((s) => s.id === 'second');
    expect(second).toMatchObject({ status: 'failed' });
    expect(second?.error).toMatch(/resolve to more than 1048576 characters/);
    expect(callsTo('/echo')).toHaveLength(1);
    await http().get('/healthz').expect(200);
  });

  it('never lets a supervisor start more worker calls than its budget', async () => {
    endpoint.received.length = 0;
    await registerAgent('boss', {
      topology: 'supervisor',
      budget: 3,
      steps: [step('lookup', 'record', { description: 'Looks an order up.' })],
    });
    // A model that always wants two more lookups.
    model.reset((_req, n) => ({
      body: completion(null, [
        { id: `c${n}a`, name: 'lookup', arguments: '{"n":1}' },
        { id: `c${n}b`, name: 'lookup', arguments: '{"n":2}' },
      ]),
    }));
    const res = await run('boss', { max_turns: 6 }).expect(200);
    expect(callsTo('/echo')).toHaveLength(3);
    expect(res.body.graph.supervisor).toMatchObject({ budget: 3, used: 3, turns: 6 });
    expect(res.body).toMatchObject({ status: 'completed', finish_reason: 'max_turns', turns: 6 });
    // Once the budget was spent the model was offered no workers.
    const offered = model.requests.map((req) => ((req.body.tools as unknown[]) ?? []).length);
    expect(offered).toEqual([1, 1, 0, 0, 0, 0]);
    const results = model.requests[2].body.messages as Array<{ role: string; content: string }>;
    expect(results.filter((m) => m.role === 'tool').at(-1)?.content).toMatch(/budget is spent/);
  });

  it('lets a supervisor pick a worker and answer (scripted model)', async () => {
    endpoint.received.length = 0;
    model.reset((_req, n) => ({
      body:
        n === 0
          ? completion(null, [{ id: 'c1', name: 'lookup', arguments: '{"order":7}' }])
          : completion('order 7 is on its way'),
    }));
    const res = await run('boss').expect(200);
    expect(res.body).toMatchObject({
      status: 'completed',
      text: 'order 7 is on its way',
      finish_reason: 'stop',
      turns: 2,
      tool_calls: 1,
    });
    expect(callsTo('/echo').map((call) => call.body)).toEqual([{ order: 7 }]);
    const first = model.requests[0].body as {
      messages: Array<{ role: string }>;
      tools: Array<{ function: { name: string } }>;
    };
    expect(first.messages[0].role).toBe('system');
    expect(first.tools.map((tool) => tool.function.name)).toEqual(['lookup']);
  });

  it('returns a finished graph run again for a repeated run_id without running a step', async () => {
    await registerAgent('once', { topology: 'pipeline', steps: [step('only', 'record')] });
    endpoint.received.length = 0;
    const first = await run('once', { run_id: 'graph-once-1' }).expect(200);
    const again = await run('once', { run_id: 'graph-once-1' }).expect(200);
    expect(again.body).toEqual(first.body);
    expect(callsTo('/echo')).toHaveLength(1);
  });
});
