import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI, {
  APIError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
} from 'openai';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { MockModel, completion } from './support/mock-model.js';
import { gatewayForSuite } from './support/suite.js';

/**
 * The OpenAI-compatible wire's edges, with the official `openai` client where a client would
 * meet them: every error in OpenAI's shape (malformed and oversized bodies, unknown paths, the
 * rate limit, a failing model, streamed or not), the whole Chat Completions request accepted,
 * and only what a run cannot honour refused, each said once.
 */
const ROOT = 'openai-errors-root-key';
const TENANT = 'acme';
const auth = { Authorization: `Bearer ${ROOT}`, 'X-Tenant-Id': TENANT };
/** Requests per tenant and minute: the rate-limit test spends a tenant of its own. */
const RATE = 30;

describe.each(BACKENDS)('the OpenAI-compatible wire’s edges (%s)', (backend) => {
  const model = new MockModel();
  beforeAll(() => model.start());
  afterAll(() => model.close());
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: ROOT,
    SVC_PROVIDER_URL: `${model.url}/v1`,
    SVC_RATE_LIMIT_PER_MIN: String(RATE),
    SVC_MAX_BODY_BYTES: String(1024 * 1024),
  }));
  const client = (tenant = TENANT) =>
    new OpenAI({
      apiKey: ROOT,
      baseURL: `${gateway.url}/v1`,
      defaultHeaders: { 'X-Tenant-Id': tenant },
      maxRetries: 0,
    });
  const post = (body: unknown) =>
    request(gateway.url)
      .post('/v1/chat/completions')
      .set(auth)
      .send(body as object);

  it('answers malformed JSON, an oversized body and unknown paths in OpenAI’s error shape', async () => {
    const malformed = await request(gateway.url)
      .post('/v1/chat/completions')
      .set({ ...auth, 'Content-Type': 'application/json' })
      .send('{"model": "default", "messages": [')
      .expect(400);
    expect(malformed.headers['content-type']).toMatch(/^application\/json/);
    expect(malformed.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'malformed_json',
    });
    const huge = await post({
      model: 'default',
      messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }],
    }).expect(413);
    expect(huge.body.error).toMatchObject({ code: 'payload_too_large' });
    for (const path of ['/v1/chat/completions/extra', '/v1/embeddings', '/v1/models/a/b']) {
      const missing = await request(gateway.url).post(path).set(auth).send({}).expect(404);
      expect(missing.body.error).toMatchObject({ type: 'not_found_error' });
    }
    // The client reads the message, not a raw JSON body.
    const embeddings = await client()
      .embeddings.create({ model: 'default', input: 'x' })
      .catch((error: unknown) => error);
    expect(embeddings).toBeInstanceOf(NotFoundError);
    expect((embeddings as APIError).message).not.toContain('{');
  });

  it('takes the whole Chat Completions request: applies what maps onto a run, ignores the rest', async () => {
    model.reset(() => ({ body: completion('all settings taken') }));
    const raw = await client()
      .chat.completions.create({
        model: 'default',
        messages: [
          { role: 'developer', content: 'be brief' },
          { role: 'user', content: 'hello', name: 'ann' },
        ],
        n: 1,
        seed: 7,
        temperature: 0.2,
        top_p: 0.9,
        max_tokens: 100,
        max_completion_tokens: 100,
        stop: ['END'],
        response_format: { type: 'text' },
        tool_choice: 'auto',
        tools: [],
        parallel_tool_calls: true,
        metadata: { order: '17' },
        store: false,
        service_tier: 'auto',
        reasoning_effort: 'low',
        verbosity: 'low',
        frequency_penalty: 0,
        presence_penalty: 0,
        logit_bias: { '50256': -100 },
        logprobs: false,
        top_logprobs: 0,
        prediction: { type: 'content', content: 'hello' },
        modalities: ['text'],
        web_search_options: {},
        user: 'user-1',
        safety_identifier: 'hashed-user-1',
        prompt_cache_key: 'k1',
      })
      .withResponse();
    expect(raw.data.choices[0].message.content).toBe('all settings taken');
    const run = await request(gateway.url)
      .get(`/v1/runs/${raw.response.headers.get('x-run-id')}?tenant_id=${TENANT}`)
      .set(auth)
      .expect(200);
    expect(run.body.metadata).toEqual({
      order: '17',
      user: 'user-1',
      safety_identifier: 'hashed-user-1',
    });
    // Streamed, with the stream options OpenAI's SDKs send.
    const stream = await client().chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true, include_obfuscation: false },
      logprobs: null,
      temperature: null,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('all settings taken');
    // null is OpenAI's "the default" for every setting that may be null.
    await post({
      model: 'default',
      messages: [{ role: 'user', content: 'hi', name: null }],
      stream_options: null,
      metadata: null,
      n: null,
      seed: null,
      stop: null,
      tools: null,
      tool_choice: null,
      response_format: null,
      modalities: null,
      audio: null,
    }).expect(200);
  });

  it('refuses only what a run cannot honour, each reason said once', async () => {
    const refused = async (extra: Record<string, unknown>, param: string) => {
      const res = await post({
        model: 'default',
        messages: [{ role: 'user', content: 'hi' }],
        ...extra,
      }).expect(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
      return res.body.error.message as string;
    };
    expect(await refused({ n: 2 }, 'n')).toContain('a run gives one answer');
    expect(await refused({ logprobs: true }, 'logprobs')).toContain('log probabilities');
    expect(
      await refused({ response_format: { type: 'json_object' } }, 'response_format'),
    ).toContain('answers in text');
    expect(await refused({ modalities: ['text', 'audio'] }, 'modalities')).toContain('text');
    expect(await refused({ tool_choice: 'required' }, 'tool_choice')).toContain('auto');
    const tools = await refused(
      { tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] },
      'tools',
    );
    expect(tools).toContain('X-Toolset');
    // A field error is said once, not once in the detail and again in the list.
    const empty = await post({ model: 'default', messages: [] }).expect(400);
    const message = empty.body.error.message as string;
    expect(message.match(/at least 1/g)).toHaveLength(1);
    // A type error is still one (the client's SDK would have sent a number).
    const typed = await post({
      model: 'default',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 'hot',
    }).expect(400);
    expect(typed.body.error.param).toBe('temperature');
  });

  it('a failing model is OpenAI’s server error, streamed or not', async () => {
    model.reset(() => ({ status: 500, body: { error: 'model down' } }));
    const plain = await client()
      .chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(plain).toBeInstanceOf(InternalServerError);
    expect((plain as APIError).status).toBe(502);
    expect((plain as APIError).type).toBe('server_error');
    const stream = await client().chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const read = async () => {
      for await (const chunk of stream) expect(chunk.object).toBe('chat.completion.chunk');
    };
    const failed = await read().catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(APIError);
    expect((failed as APIError).message).toContain('model endpoint');
    model.reset(() => ({ body: completion('back') }));
  });

  it('the rate limit is OpenAI’s rate_limit_error with Retry-After, streamed or not', async () => {
    const limited = client('limited-tenant');
    const spend = Array.from({ length: RATE }, () =>
      request(gateway.url)
        .get('/v1/models')
        .set({ Authorization: `Bearer ${ROOT}`, 'X-Tenant-Id': 'limited-tenant' }),
    );
    await Promise.all(spend);
    const plain = await limited.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse()
      .catch((error: unknown) => error);
    expect(plain).toBeInstanceOf(RateLimitError);
    expect((plain as APIError).type).toBe('rate_limit_error');
    expect(Number((plain as APIError).headers?.get('retry-after'))).toBeGreaterThan(0);
    const streamed = await limited.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((error: unknown) => error);
    expect(streamed).toBeInstanceOf(RateLimitError);
    // Another tenant is not held back.
    await client()
      .chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'hi' }] })
      .then((completion) => expect(completion.object).toBe('chat.completion'));
  });

  it('refuses a message past the input bound, as POST /v1/agent/run does', async () => {
    const long = 'y'.repeat(200_001);
    const res = await post({
      model: 'default',
      messages: [{ role: 'user', content: long }],
    }).expect(400);
    expect(res.body.error.message).toContain('200000');
    const refused = await client()
      .chat.completions.create({ model: 'default', messages: [{ role: 'user', content: long }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BadRequestError);
  });
});
