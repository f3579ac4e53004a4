import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { freePort } from './support/net.js';
import { gatewayForSuite } from './support/suite.js';

const KEY = 'agent-echo-test-key';
const auth = { Authorization: `Bearer ${KEY}` };

describe.each(BACKENDS)('agent runs on the echo provider (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, { SVC_API_KEY: KEY, SVC_TENANT: 'default-tenant' });
  const run = (body: Record<string, unknown>) =>
    request(gateway.url).post('/v1/agent/run').set(auth).send(body);

  it('echoes a plain prompt in one turn', async () => {
    const res = await run({ tenant_id: 'acme', prompt: 'hello there' }).expect(200);
    expect(res.body).toMatchObject({
      tenant_id: 'acme',
      agent: 'default',
      status: 'completed',
      text: 'hello there',
      finish_reason: 'stop',
      turns: 1,
      tool_calls: 0,
      trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(res.body.run_id).toEqual(expect.any(String));
    expect(res.body.session_id).toEqual(expect.any(String));
    expect(res.body.messages).toEqual([
      { role: 'user', content: 'hello there' },
      expect.objectContaining({ role: 'assistant', content: 'hello there' }),
    ]);
  });

  it('runs the calculator through a tool call and answers with 14', async () => {
    const res = await run({
      tenant_id: 'acme',
      prompt: '/tool calculator {"expression":"2*(3+4)"}',
    }).expect(200);
    expect(res.body).toMatchObject({
      status: 'completed',
      finish_reason: 'stop',
      turns: 2,
      tool_calls: 1,
    });
    expect(res.body.text).toContain('14');
    const toolMessage = (
      res.body.messages as Array<{ role: string; content: string; tool_call_id?: string }>
    ).find((m) => m.role === 'tool');
    expect(toolMessage).toMatchObject({ content: '14', tool_call_id: expect.any(String) });
  });

  it('requires tenant_id even with SVC_TENANT set, and a prompt or messages', async () => {
    const missing = await run({ prompt: 'hi' }).expect(400);
    expect(missing.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'tenant_id' })]),
    );
    const empty = await run({ tenant_id: 'acme' }).expect(400);
    expect(empty.body.errors).toEqual([
      { path: 'prompt', message: 'prompt or messages is required' },
    ]);
    await run({ tenant_id: 'acme', prompt: 'x', max_turns: 0 }).expect(400);
    await run({ tenant_id: 'acme', prompt: 'x', session_id: 'has spaces' }).expect(400);
  });

  it('continues a session across runs and serves it from /v1/sessions', async () => {
    await run({ tenant_id: 'acme', session_id: 'conv-1', prompt: 'first' }).expect(200);
    const second = await run({ tenant_id: 'acme', session_id: 'conv-1', prompt: 'second' }).expect(
      200,
    );
    expect(second.body.session_id).toBe('conv-1');
    const session = await request(gateway.url)
      .get('/v1/sessions/conv-1?tenant_id=acme')
      .set(auth)
      .expect(200);
    expect(
      (session.body.messages as Array<{ role: string; content: string }>).map((m) => [
        m.role,
        m.content,
      ]),
    ).toEqual([
      ['user', 'first'],
      ['assistant', 'first'],
      ['user', 'second'],
      ['assistant', 'second'],
    ]);
    expect(session.body.version).toBe(2);
    // Another tenant's session of the same id is a different session.
    await request(gateway.url).get('/v1/sessions/conv-1?tenant_id=other').set(auth).expect(404);
  });

  it('records runs: /v1/runs returns a finished run, and a repeated run_id replays it', async () => {
    const first = await run({ tenant_id: 'acme', run_id: 'run-echo-1', prompt: 'once' }).expect(
      200,
    );
    const stored = await request(gateway.url)
      .get('/v1/runs/run-echo-1?tenant_id=acme')
      .set(auth)
      .expect(200);
    expect(stored.body).toEqual(first.body);
    const again = await run({
      tenant_id: 'acme',
      run_id: 'run-echo-1',
      prompt: 'a different prompt',
    }).expect(200);
    expect(again.body).toEqual(first.body);
    await request(gateway.url).get('/v1/runs/run-echo-1?tenant_id=other').set(auth).expect(404);
    await request(gateway.url).get('/v1/runs/run-echo-1').set(auth).expect(400);
  });

  it('answers 404 for an unknown toolset or agent', async () => {
    const toolset = await run({ tenant_id: 'acme', prompt: 'x', toolset: 'nope' }).expect(404);
    expect(toolset.body.type).toBe('urn:svc:problem:toolset-not-found');
    const agent = await run({ tenant_id: 'acme', prompt: 'x', agent: 'ghost' }).expect(404);
    expect(agent.body.type).toBe('urn:svc:problem:agent-not-found');
  });

  it('gives the model an error result when a tool fails, and the run still completes', async () => {
    const port = await freePort();
    await request(gateway.url)
      .put('/v1/toolsets/ops/tools/lookup')
      .set(auth)
      .send({
        tenant_id: 'acme',
        description: 'looks things up',
        parameters: { type: 'object', properties: {} },
        endpoint: { url: `http://127.0.0.1:${port}/lookup` },
      })
      .expect(200);
    const res = await run({ tenant_id: 'acme', toolset: 'ops', prompt: '/tool lookup {}' }).expect(
      200,
    );
    expect(res.body).toMatchObject({
      status: 'completed',
      turns: 2,
      tool_calls: 1,
      finish_reason: 'stop',
    });
    const toolMessage = (res.body.messages as Array<{ role: string; content: string }>).find(
      (m) => m.role === 'tool',
    );
    expect(toolMessage?.content).toMatch(/^error: /);
    // Unknown tools and invalid arguments are error results too.
    const unknown = await run({ tenant_id: 'acme', prompt: '/tool no_such_tool {}' }).expect(200);
    expect(unknown.body.messages[2].content).toMatch(/^error: /);
    const invalid = await run({
      tenant_id: 'acme',
      prompt: '/tool calculator {"expression": 5}',
    }).expect(200);
    expect(invalid.body.messages[2].content).toMatch(/^error: /);
  });

  it('stops at max_turns when the model keeps asking for tools', async () => {
    const res = await run({
      tenant_id: 'acme',
      prompt: '/tool echo {"text":"x"}',
      max_turns: 1,
    }).expect(200);
    expect(res.body).toMatchObject({ finish_reason: 'max_turns', turns: 1, tool_calls: 1 });
  });

  it('audits runs', async () => {
    await run({ tenant_id: 'audited', prompt: 'hi' }).expect(200);
    const audit = await request(gateway.url)
      .get('/v1/audit?tenant_id=audited')
      .set(auth)
      .expect(200);
    expect((audit.body.events as Array<{ kind: string }>).map((e) => e.kind)).toEqual([
      'run.completed',
      'run.started',
    ]);
  });
});
