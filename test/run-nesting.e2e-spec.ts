import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { ChatMessage } from '../src/providers/chat.types.js';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { BACKENDS } from './support/backends.js';
import { ChatServer, SLACK_PATH, messageText, waitUntil } from './support/chat-server.js';
import { connectMcp } from './support/mcp-client.js';
import { MockModel, completion, lastUserText } from './support/mock-model.js';
import { LogCapture } from './support/gateway.js';
import { gatewayForSuite } from './support/suite.js';

const TENANT = 'ta';
/** The prompt of every run an agent tries to start: the model must never be asked it. */
const NESTED = 'nested run';

/** An agent's plan: the tool it calls for a prompt (then it answers with what it saw). */
type Plans = Record<string, { tool: string; args: Record<string, unknown> }>;

/**
 * Auth is off and the gateway listens on loopback (its dev mode): every request, including a
 * run's own HTTP tool call pointed back at the gateway, would otherwise hold every permission.
 */
// One capture for the file: nestjs-pino keeps one logger per process.
const logs = new LogCapture();

describe.each(BACKENDS)('an agent never starts agents, with auth off (%s)', (backend) => {
  const model = new MockModel();
  const chat = new ChatServer();
  beforeAll(async () => {
    await model.start();
    await chat.start();
  });
  afterAll(async () => {
    await model.close();
    await chat.close();
  });
  const gateway = gatewayForSuite(
    backend,
    () => ({
      SVC_PROVIDER_URL: `${model.url}/v1`,
      SVC_CHATA_WEBHOOK: chat.slackUrl,
      SVC_OUTBOX_POLL_MS: '50',
    }),
    { logs },
  );

  const plans: Plans = {};
  beforeAll(() => {
    model.reset((req) => {
      const messages = req.body.messages as ChatMessage[];
      const result = messages.findLast((message) => message.role === 'tool');
      if (result) return { body: completion(`saw: ${result.content}`) };
      const plan = plans[lastUserText(req)];
      if (!plan) return { body: completion(`echo: ${lastUserText(req)}`) };
      return {
        body: completion(null, [
          { id: 'call_1', name: plan.tool, arguments: JSON.stringify(plan.args) },
        ]),
      };
    });
  });
  // Each test counts the model requests of its own runs.
  beforeEach(() => model.reset());
  const nestedAsks = () => model.requests.filter((req) => lastUserText(req) === NESTED).length;

  /** An HTTP tool of toolset `loop` whose endpoint is this gateway's own `path`. */
  const registerLoopback = async (name: string, path: string) => {
    await request(gateway.url)
      .put(`/v1/toolsets/loop/tools/${name}`)
      .send({
        tenant_id: TENANT,
        description: `calls the gateway's ${path}`,
        parameters: { type: 'object', additionalProperties: true },
        endpoint: { url: `${gateway.url}${path}` },
      })
      .expect(200);
  };
  const run = (body: Record<string, unknown>) =>
    request(gateway.url)
      .post('/v1/agent/run')
      .send({ tenant_id: TENANT, ...body })
      .expect(200);

  it('refuses a run started by a tool call back into POST /v1/agent/run', async () => {
    await registerLoopback('spawn_rest', '/v1/agent/run');
    plans['loop over rest'] = {
      tool: 'spawn_rest',
      args: { tenant_id: TENANT, toolset: 'loop', prompt: NESTED },
    };
    const seen = logs.lines.length;
    const res = await run({ toolset: 'loop', prompt: 'loop over rest' });
    expect(res.body.status).toBe('completed');
    // The nested POST was answered 403 (logged by the gateway that answered it); the outer
    // model saw the tool fail, with the one reason tenants get for any tool failure.
    const nested = logs
      .records()
      .slice(seen)
      .filter((line) => (line.req as { path?: string } | undefined)?.path === '/v1/agent/run');
    expect(nested.map((line) => (line.res as { status?: number } | undefined)?.status)).toContain(
      403,
    );
    expect(res.body.text).toBe('saw: error: tool endpoint unreachable');
    expect(nestedAsks()).toBe(0);
  });

  it('refuses run_agent reached by a tool call back into POST /v1/tools', async () => {
    await registerLoopback('spawn_tool', '/v1/tools/agents/run_agent');
    plans['loop over the tool route'] = {
      tool: 'spawn_tool',
      args: { tenant_id: TENANT, arguments: { prompt: NESTED, toolset: 'loop' } },
    };
    const res = await run({ toolset: 'loop', prompt: 'loop over the tool route' });
    expect(res.body.text).toContain('agents cannot start agents');
    expect(nestedAsks()).toBe(0);
  });

  it("refuses run_agent among the run's own tools", async () => {
    const nestedId = `${backend}-nested-in-process`;
    plans['start another'] = { tool: 'run_agent', args: { prompt: NESTED, run_id: nestedId } };
    const res = await run({ toolset: 'agents', prompt: 'start another' });
    expect(res.body.text).toContain('agents cannot start agents');
    expect(nestedAsks()).toBe(0);
    await request(gateway.url).get(`/v1/runs/${nestedId}?tenant_id=${TENANT}`).expect(404);
  });

  it('lets an MCP client run an agent, but not that agent start another', async () => {
    plans['from mcp'] = { tool: 'run_agent', args: { prompt: NESTED } };
    const mcp = await connectMcp(`${gateway.url}/mcp/`, {
      'X-Tenant-Id': TENANT,
      'X-Toolset': 'agents',
    });
    try {
      const result = await mcp.client.callTool({
        name: 'run_agent',
        arguments: { prompt: 'from mcp', toolset: 'agents' },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 'completed' });
      expect((result.structuredContent as { text: string }).text).toContain(
        'agents cannot start agents',
      );
    } finally {
      await mcp.close();
    }
    expect(nestedAsks()).toBe(0);
  });

  it("refuses run_agent as a graph's tool step", async () => {
    await request(gateway.url)
      .put('/v1/agents/spawner')
      .send({
        tenant_id: TENANT,
        topology: 'pipeline',
        steps: [
          {
            id: 'spawn',
            kind: 'tool',
            toolset: 'agents',
            tool: 'run_agent',
            arguments: { prompt: NESTED },
          },
        ],
      })
      .expect(200);
    const res = await run({ agent: 'spawner', prompt: 'go' });
    const body = res.body as RunRecord;
    expect(body.status).toBe('failed');
    expect(body.graph?.steps[0]).toMatchObject({ status: 'failed' });
    expect(body.graph?.steps[0].error).toContain('agents cannot start agents');
    expect(nestedAsks()).toBe(0);
  });

  it('refuses the run of a chat message posted by a tool call back into the webhook', async () => {
    await registerLoopback('spawn_chat', '/v1/messaging/webhook');
    plans['loop over chat'] = {
      tool: 'spawn_chat',
      args: {
        tenant_id: TENANT,
        channel: 'chata',
        conversation_id: 'room-1',
        user: 'agent',
        text: NESTED,
        event_id: `${backend}-loop-event`,
      },
    };
    await run({ toolset: 'loop', prompt: 'loop over chat' });
    await waitUntil(() => chat.received(SLACK_PATH).length > 0, 'the chat reply was posted');
    expect(messageText(chat.received(SLACK_PATH)[0].body)).toMatch(/Sorry, I could not answer/);
    expect(nestedAsks()).toBe(0);
  });

  it('still runs what a person asks for directly', async () => {
    const res = await run({ prompt: 'hello' });
    expect(res.body.text).toBe('echo: hello');
  });
});
