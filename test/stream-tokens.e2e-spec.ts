import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { MockModel, type SeenRequest, completion, lastUserText } from './support/mock-model.js';
import { type ReceivedEvent, readEvents } from './support/sse-client.js';

const KEY = 'stream-tokens-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';
const ANSWER = 'one two three four five six seven eight nine ten';

interface EventBody {
  data: { turn?: number; text?: string; tool_call?: Record<string, unknown>; run?: RunRecord };
}
const data = (event: ReceivedEvent) => (event.json as EventBody).data;

/**
 * `tool please` asks for the built-in `echo` tool first; anything else is answered with ANSWER.
 * Streamed slowly: a chunk every 60 ms.
 */
function script(req: SeenRequest) {
  const results = ((req.body.messages ?? []) as Array<{ role: string }>).filter(
    (message) => message.role === 'tool',
  ).length;
  if (lastUserText(req) === 'tool please' && results === 0) {
    return {
      body: completion(null, [{ id: 'call_1', name: 'echo', arguments: '{"text":"hi"}' }]),
      streamEveryMs: 60,
    };
  }
  return { body: completion(ANSWER), streamEveryMs: 60 };
}

describe.each(BACKENDS)('model tokens streamed through a run (%s)', (backend) => {
  let fixture: BackendFixture;
  const model = new MockModel();
  let gateway: RunningGateway;

  beforeAll(async () => {
    await model.start();
    model.reset(script);
    fixture = await createBackend(backend);
    gateway = await startGateway({
      ...fixture.env,
      SVC_API_KEY: KEY,
      SVC_PROVIDER_URL: `${model.url}/v1`,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await fixture?.cleanup();
    await model.close();
  });

  it('deltas arrive while the model is still streaming, and spell the final answer', async () => {
    const arrivedAt: number[] = [];
    const result = await readEvents(`${gateway.url}/v1/agent/run`, {
      method: 'POST',
      headers: auth,
      body: { tenant_id: TENANT, prompt: 'hello', stream: true, run_id: `${backend}-tokens` },
      onEvent: (event) => {
        if (event.event === 'model.delta') arrivedAt.push(Date.now());
      },
    });
    const upstream = model.requests.at(-1)!;
    expect(upstream.body.stream).toBe(true);
    const deltas = result.events.filter((event) => event.event === 'model.delta');
    expect(deltas.length).toBe(10);
    // The first token reached the client before the model had sent its last one.
    expect(arrivedAt[0]).toBeLessThan(model.streamsEndedAt.at(-1)!);
    expect(deltas.map((event) => data(event).text).join('')).toBe(ANSWER);
    const settled = data(result.events.at(-1)!).run!;
    expect(settled).toMatchObject({ status: 'completed', text: ANSWER, turns: 1 });
  });

  it('tool-call chunks stream too, and a non-streamed caller gets the same record', async () => {
    const streamed = await readEvents(`${gateway.url}/v1/agent/run`, {
      method: 'POST',
      headers: auth,
      body: { tenant_id: TENANT, prompt: 'tool please', stream: true, run_id: `${backend}-calls` },
    });
    const call = streamed.events.find(
      (event) => event.event === 'model.delta' && data(event).tool_call !== undefined,
    );
    expect(data(call!).tool_call).toMatchObject({ index: 0, id: 'call_1', name: 'echo' });
    const record = data(streamed.events.at(-1)!).run!;

    const plain = await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, prompt: 'tool please', run_id: `${backend}-calls-plain` })
      .expect(200);
    expect(model.requests.at(-1)!.body.stream).toBeUndefined();
    const comparable = (run: RunRecord) => ({
      status: run.status,
      text: run.text,
      turns: run.turns,
      tool_calls: run.tool_calls,
      finish_reason: run.finish_reason,
      messages: run.messages,
    });
    expect(comparable(plain.body as RunRecord)).toEqual(comparable(record));
  });
});
