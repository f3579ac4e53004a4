import { beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI, { APIError, NotFoundError, PermissionDeniedError } from 'openai';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { refundGraph } from './support/graphs.js';
import { writeKeysFile } from './support/keys-file.js';
import { gatewayForSuite } from './support/suite.js';

/**
 * The OpenAI-compatible wire, driven by the official `openai` npm client: an agent called as if
 * it were a model, its tools running inside the gateway (the echo provider calls `calculator`
 * when the message says `/tool calculator {...}`).
 */
const ROOT = 'openai-wire-root-key';
const KEY_B = 'openai-wire-tenant-b-key';
const TENANT = 'acme';

const keysFile = writeKeysFile({
  keys: [{ id: 'b-runner', key: KEY_B, tenant_id: 'b', roles: ['operator'] }],
});

describe.each(BACKENDS)('OpenAI-compatible chat completions (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, { SVC_API_KEY: ROOT, SVC_KEYS_FILE: keysFile });
  const client = (key = ROOT, headers: Record<string, string> = { 'X-Tenant-Id': TENANT }) =>
    new OpenAI({
      apiKey: key,
      baseURL: `${gateway.url}/v1`,
      defaultHeaders: headers,
      maxRetries: 0,
    });

  beforeAll(async () => {
    // A graph agent: it pauses at its `pay` step for an approval.
    await request(gateway.url)
      .put('/v1/agents/refunds')
      .set({ Authorization: `Bearer ${ROOT}` })
      .send(refundGraph(TENANT))
      .expect(200);
  });

  it('answers a completion whose agent ran a tool, with usage and the run to find', async () => {
    const raw = await client()
      .chat.completions.create({
        model: 'default',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: '/tool calculator {"expression": "6*7"}' },
        ],
      })
      .withResponse();
    const completion = raw.data;
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('default');
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0].message.role).toBe('assistant');
    // The echo model answers with the tool's result: the tool ran inside the gateway.
    expect(completion.choices[0].message.content).toContain('42');
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    );
    const runId = raw.response.headers.get('x-run-id');
    expect(completion.id).toBe(`chatcmpl-${runId}`);
    const run = await request(gateway.url)
      .get(`/v1/runs/${runId}?tenant_id=${TENANT}`)
      .set({ Authorization: `Bearer ${ROOT}` })
      .expect(200);
    expect(run.body).toMatchObject({ status: 'completed', tool_calls: 1, usage: completion.usage });
  });

  it('streams chunks that spell the answer, then the finish reason, usage and [DONE]', async () => {
    const stream = await client().chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'stream these few words back' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const finishes: Array<string | null> = [];
    let usage: OpenAI.CompletionUsage | undefined | null;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      expect(chunk.object).toBe('chat.completion.chunk');
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? '';
        finishes.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('stream these few words back');
    // The role chunk, one per word, the finish reason, the usage.
    expect(chunks).toBeGreaterThanOrEqual(7);
    expect(finishes.filter((reason) => reason !== null)).toEqual(['stop']);
    expect(usage?.total_tokens).toBeGreaterThan(0);

    // With a tool call: the tool runs inside the gateway, the answer after it is streamed.
    const withTool = await client().chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: '/tool calculator {"expression": "2+3"}' }],
      stream: true,
    });
    let answer = '';
    for await (const chunk of withTool) answer += chunk.choices[0]?.delta.content ?? '';
    expect(answer).toBe('calculator → 5');
  });

  it('continues a session named by X-Session-Id, taking only the new messages', async () => {
    const session = `chat-${backend}`;
    const inSession = client(ROOT, { 'X-Tenant-Id': TENANT, 'X-Session-Id': session });
    await inSession.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'first question' }],
    });
    const second = await inSession.chat.completions.create({
      model: 'default',
      messages: [
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first question' },
        { role: 'user', content: 'second question' },
      ],
    });
    expect(second.choices[0].message.content).toBe('second question');
    const stored = await request(gateway.url)
      .get(`/v1/sessions/${session}?tenant_id=${TENANT}`)
      .set({ Authorization: `Bearer ${ROOT}` })
      .expect(200);
    const said = (stored.body.messages as Array<{ role: string; content: string }>).map(
      (message) => `${message.role}:${message.content}`,
    );
    expect(said).toEqual([
      'user:first question',
      'assistant:first question',
      'user:second question',
      'assistant:second question',
    ]);
  });

  it("lists the tenant's agents as models, and an unknown model is OpenAI's 404", async () => {
    const models = await client().models.list();
    const ids = models.data.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(['default', 'refunds']));
    expect(models.data.every((model) => model.owned_by === TENANT)).toBe(true);
    expect((await client().models.retrieve('refunds')).id).toBe('refunds');

    const missing = await client()
      .chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as APIError).code).toBe('model_not_found');
    expect((missing as APIError).type).toBe('not_found_error');
  });

  it('a graph that stops for approval is a 409 naming the run', async () => {
    const paused = await client()
      .chat.completions.create({
        model: 'refunds',
        messages: [{ role: 'user', content: 'order 17' }],
      })
      .catch((error: unknown) => error);
    expect(paused).toBeInstanceOf(APIError);
    expect((paused as APIError).status).toBe(409);
    expect((paused as APIError).code).toBe('run_paused');
    expect((paused as APIError).message).toContain('waits for an approval at node "pay"');
  });

  it('a streamed run that stops ends its stream with an error the client throws', async () => {
    const stream = await client().chat.completions.create({
      model: 'refunds',
      messages: [{ role: 'user', content: 'order 18' }],
      stream: true,
    });
    const read = async () => {
      for await (const chunk of stream) expect(chunk.object).toBe('chat.completion.chunk');
    };
    const failed = await read().catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(APIError);
    expect((failed as APIError).message).toContain('waits for an approval');
    // Before the run starts, a stream's failure is an ordinary error response.
    const missing = await client()
      .chat.completions.create({
        model: 'nope',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
  });

  it('refuses what an agent cannot honour, in OpenAI’s error shape', async () => {
    const res = await request(gateway.url)
      .post('/v1/chat/completions')
      .set({ Authorization: `Bearer ${ROOT}`, 'X-Tenant-Id': TENANT })
      .send({
        model: 'default',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'f' } }],
      })
      .expect(400);
    expect(res.body).toEqual({
      error: expect.objectContaining({
        type: 'invalid_request_error',
        code: 'validation',
        param: 'tools',
      }),
    });
    const noKey = await request(gateway.url)
      .post('/v1/chat/completions')
      .send({ model: 'default', messages: [{ role: 'user', content: 'hi' }] })
      .expect(401);
    expect(noKey.body.error).toMatchObject({ type: 'authentication_error' });
    expect(noKey.headers['www-authenticate']).toContain('Bearer');
    const image = await request(gateway.url)
      .post('/v1/chat/completions')
      .set({ Authorization: `Bearer ${ROOT}`, 'X-Tenant-Id': TENANT })
      .send({
        model: 'default',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }],
      })
      .expect(400);
    expect(image.body.error.param).toBe('messages[0].content[0]');
  });

  it("keeps a tenant-bound key inside its tenant: it neither sees nor runs another's agents", async () => {
    const own = await client(KEY_B, {}).models.list();
    expect(own.data.map((model) => model.id)).toEqual(['default']);
    expect(own.data[0].owned_by).toBe('b');
    const across = await client(KEY_B, { 'X-Tenant-Id': TENANT })
      .chat.completions.create({ model: 'refunds', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(across).toBeInstanceOf(PermissionDeniedError);
    const unknown = await client(KEY_B, {})
      .chat.completions.create({ model: 'refunds', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(NotFoundError);
  });
});
