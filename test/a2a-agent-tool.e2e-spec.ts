import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { refundGraph } from './support/graphs.js';
import { LogCapture, type RunningGateway, startGateway } from './support/gateway.js';
import { type SdkA2AAgent, startSdkA2AAgent } from './support/sdk-a2a-agent.js';

/**
 * A remote A2A agent registered as a tool (`endpoint.protocol: a2a`): an agent on the official
 * SDK's server, reached with the SDK's client from its card, through the one tool path (REST,
 * agent runs), its answers and failures as tool results, with the headers registered for it
 * (never shown back or logged). A task still working is followed to its end (by its stream, or
 * by polling an agent that does not stream), and cancelled when the call gives up. Another
 * gateway deployment's agents may be called from a run; this deployment's own refuse, on any of
 * its replicas (an agent never starts agents).
 */
const KEY = 'a2a-tool-root-key';
const SECRET = 'remote-agent-secret-7d1f';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';
/** The tool timeout of the calling gateway: a held task is given up after it. */
const TOOL_TIMEOUT_MS = 3_000;
// One capture for the file: nestjs-pino keeps one logger per process.
const logs = new LogCapture();

describe.each(BACKENDS)('a remote A2A agent as a tool (%s)', (backend) => {
  let fixture: BackendFixture;
  let remoteFixture: BackendFixture;
  let caller: RunningGateway;
  let remote: RunningGateway;
  let streaming: SdkA2AAgent;
  let polled: SdkA2AAgent;

  const register = (
    name: string,
    url: string,
    headers?: Record<string, string>,
    protocol: 'a2a' | 'http' = 'a2a',
  ) =>
    request(caller.url)
      .put(`/v1/toolsets/helpers/tools/${name}`)
      .set(auth)
      .send({
        tenant_id: TENANT,
        description: `asks the agent at ${url}`,
        parameters: {
          type: 'object',
          properties: { message: { type: 'string' } },
          required: ['message'],
        },
        endpoint: { url, protocol, ...(headers && { headers }) },
      });
  const call = (name: string, message: string) =>
    request(caller.url)
      .post(`/v1/tools/helpers/${name}`)
      .set(auth)
      .send({ tenant_id: TENANT, arguments: { message } });
  const runTool = (tool: string, message: string) =>
    request(caller.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({
        tenant_id: TENANT,
        toolset: 'helpers',
        prompt: `/tool ${tool} ${JSON.stringify({ message })}`,
      })
      .expect(200);

  beforeAll(async () => {
    streaming = await startSdkA2AAgent();
    polled = await startSdkA2AAgent({ streaming: false });
    fixture = await createBackend(backend);
    remoteFixture = await createBackend('sqlite');
    // The remote agent: another gateway deployment, without keys, serving one tenant.
    remote = await startGateway({ ...remoteFixture.env, SVC_TENANT: 'remote' }, { logs });
    await request(remote.url).put('/v1/agents/refunds').send(refundGraph('remote')).expect(200);
    caller = await startGateway(
      {
        ...fixture.env,
        SVC_API_KEY: KEY,
        SVC_TOOL_ALLOWED_HOSTS: '127.0.0.1',
        SVC_TOOL_TIMEOUT_MS: String(TOOL_TIMEOUT_MS),
      },
      { logs },
    );
  });
  afterAll(async () => {
    await caller?.close();
    await remote?.close();
    await fixture?.cleanup();
    await remoteFixture?.cleanup();
    await streaming?.close();
    await polled?.close();
  });

  it('registers the agent as a tool and calls it: the task’s answer is the result', async () => {
    const registered = await register('ask_remote', streaming.url).expect(200);
    expect(registered.body.tool.endpoint).toEqual({ url: streaming.url, protocol: 'a2a' });
    const answered = await call('ask_remote', 'hello over A2A').expect(200);
    expect(answered.body).toMatchObject({ is_error: false, result: 'echo: hello over A2A' });
  });

  it('sends the headers registered for the agent, and never shows or logs their values', async () => {
    const registered = await register('ask_secret', streaming.url, {
      Authorization: `Bearer ${SECRET}`,
      'X-Agent-Team': 'payments',
    }).expect(200);
    expect(registered.body.tool.endpoint).toEqual({
      url: streaming.url,
      protocol: 'a2a',
      header_names: ['Authorization', 'X-Agent-Team'],
    });
    const seenBefore = streaming.headers.length;
    await call('ask_secret', 'with credentials').expect(200);
    const seen = streaming.headers.slice(seenBefore);
    expect(seen.length).toBeGreaterThan(0);
    // Every request (the card and the calls) carries them.
    for (const headers of seen) expect(headers.authorization).toBe(`Bearer ${SECRET}`);
    const listed = await request(caller.url)
      .get(`/v1/toolsets/helpers?tenant_id=${TENANT}`)
      .set(auth)
      .expect(200);
    const audit = await request(caller.url).get(`/v1/audit?tenant_id=${TENANT}`).set(auth);
    for (const text of [JSON.stringify(listed.body), JSON.stringify(audit.body), logs.text]) {
      expect(text).not.toContain(SECRET);
    }
    // Headers go to A2A agents only, and not the ones the protocol or the gateway set.
    const http = await register('plain', `${streaming.url}/x`, { 'X-Key': 'v' }, 'http').expect(
      400,
    );
    expect(http.body.errors[0].path).toBe('endpoint.headers');
    const reserved = await register('ask_bad', streaming.url, { 'A2A-Version': '0.3' }).expect(400);
    expect(reserved.body.errors[0].path).toBe('endpoint.headers.A2A-Version');
    expect(JSON.stringify(reserved.body)).not.toContain('0.3');
  });

  it('an agent run calls it like any tool, the call’s idempotency key as the message id', async () => {
    await register('ask_remote', `${streaming.url}/.well-known/agent-card.json`).expect(200);
    const run = await request(caller.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({
        tenant_id: TENANT,
        toolset: 'helpers',
        run_id: `a2a-tool-run-${backend}`,
        prompt: '/tool ask_remote {"message": "from a run"}',
      })
      .expect(200);
    expect(run.body).toMatchObject({ status: 'completed', tool_calls: 1 });
    expect(run.body.text).toContain('echo: from a run');
    expect(streaming.messageIds.some((id) => id.startsWith(`a2a-tool-run-${backend}/`))).toBe(true);
  });

  it('follows a task that is still working to its end: by its stream, or by polling', async () => {
    for (const [tool, agent] of [
      ['ask_streaming', streaming],
      ['ask_polled', polled],
    ] as const) {
      await register(tool, agent.url).expect(200);
      const pending = call(tool, 'hold on, then answer').then((res) => res);
      await agent.holding();
      agent.release();
      const answered = await pending;
      expect([tool, answered.status, answered.body.result]).toEqual([
        tool,
        200,
        'echo: hold on, then answer',
      ]);
    }
  });

  it('cancels the remote task when the call times out', async () => {
    await register('ask_polled', polled.url).expect(200);
    const started = Date.now();
    const pending = call('ask_polled', 'hold forever').then((res) => res);
    await polled.holding();
    const answered = await pending;
    expect(answered.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(TOOL_TIMEOUT_MS + 2_000);
    expect(polled.cancelled).toHaveLength(1);
  });

  it('a task that stops for input is a tool error; an agent that is not there, 502', async () => {
    await register('ask_remote', streaming.url).expect(200);
    const paused = await call('ask_remote', 'I need input').expect(200);
    expect(paused.body.is_error).toBe(true);
    expect(paused.body.result).toBe(
      'the remote agent needs input this call cannot give: which order?',
    );
    await register('ask_nobody', `${remote.url}/a2a-nowhere`).expect(200);
    const missing = await call('ask_nobody', 'hi').expect(502);
    expect(missing.body).toMatchObject({
      type: 'urn:svc:problem:tool-failed',
      detail: 'remote A2A agent unreachable',
    });
  });

  it('a run may call another gateway’s agent, never its own gateway’s', async () => {
    await register('ask_gateway', `${remote.url}/a2a/default`).expect(200);
    const across = await runTool('ask_gateway', 'hello, other gateway');
    expect(across.body.text).toContain('hello, other gateway');
    expect(across.body.text).not.toContain('cannot start another run');
    // Its own agents, over A2A: the call carries this deployment's mark.
    await register('ask_self', `${caller.url}/a2a/default`, {
      Authorization: `Bearer ${KEY}`,
      'X-Tenant-Id': TENANT,
    }).expect(200);
    const self = await runTool('ask_self', 'hello, myself');
    expect(self.body.text).toContain('a run cannot start another run');
  });

  it('the egress policy holds: a metadata address is refused at registration', async () => {
    const refused = await register('ask_meta', 'http://169.254.169.254/a2a').expect(400);
    expect(refused.body.errors[0].path).toBe('endpoint.url');
  });
});

describe('two replicas of one deployment (postgres)', () => {
  let fixture: BackendFixture;
  let replicas: RunningGateway[];

  beforeAll(async () => {
    fixture = await createBackend('postgres');
    const env = { ...fixture.env, SVC_API_KEY: KEY, SVC_TOOL_ALLOWED_HOSTS: '127.0.0.1' };
    replicas = [await startGateway(env, { logs }), await startGateway(env, { logs })];
  });
  afterAll(async () => {
    await Promise.all((replicas ?? []).map((replica) => replica.close()));
    await fixture?.cleanup();
  });

  it('know each other’s calls: a run on one cannot start a run on the other', async () => {
    const [a, b] = replicas;
    await request(a.url)
      .put('/v1/toolsets/helpers/tools/ask_twin')
      .set(auth)
      .send({
        tenant_id: TENANT,
        description: 'asks the other replica',
        parameters: { type: 'object', properties: { message: { type: 'string' } } },
        endpoint: {
          url: `${b.url}/a2a/default`,
          protocol: 'a2a',
          headers: { Authorization: `Bearer ${KEY}`, 'X-Tenant-Id': TENANT },
        },
      })
      .expect(200);
    const run = await request(a.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: TENANT, toolset: 'helpers', prompt: '/tool ask_twin {"message": "x"}' })
      .expect(200);
    expect(run.body.text).toContain('a run cannot start another run');
  });
});
