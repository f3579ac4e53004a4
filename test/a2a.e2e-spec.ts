import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Task, TaskState } from '@a2a-js/sdk';
import request from 'supertest';
import {
  a2aClient,
  answerOf,
  isTask,
  keyedFetch,
  sendParams,
  userMessage,
} from './support/a2a-client.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { waitUntil } from './support/chat-server.js';
import { type GatedEndpoint, startGatedEndpoint } from './support/gated-endpoint.js';
import { refundGraph } from './support/graphs.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { writeKeysFile } from './support/keys-file.js';
import { gatewayForSuite } from './support/suite.js';

/**
 * A2A v1.0 with the official `@a2a-js/sdk` client: agent cards, a task that is a run (send,
 * stream, get, list, cancel), a graph paused for approval surfacing as `input-required` and
 * finished with an A2A message, tenant isolation, and a task read from another replica.
 */
const ROOT = 'a2a-root-key';
const KEY_B = 'a2a-tenant-b-key';
const TENANT = 'acme';
const asRoot = keyedFetch(ROOT, { 'X-Tenant-Id': TENANT });
const keysFile = writeKeysFile({
  keys: [{ id: 'b-runner', key: KEY_B, tenant_id: 'b', roles: ['operator'] }],
});

async function sent(promise: Promise<unknown>): Promise<Task> {
  const result = (await promise) as Parameters<typeof isTask>[0];
  if (!isTask(result)) throw new Error('expected a task, got a message');
  return result;
}

describe.each(BACKENDS)('A2A over runs (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, { SVC_API_KEY: ROOT, SVC_KEYS_FILE: keysFile });

  beforeAll(async () => {
    await request(gateway.url)
      .put('/v1/agents/refunds')
      .set({ Authorization: `Bearer ${ROOT}` })
      .send(refundGraph(TENANT))
      .expect(200);
  });

  it('publishes cards: the gateway’s without a key, a tenant agent’s with its tools as skills', async () => {
    const open = await request(gateway.url)
      .get('/.well-known/agent-card.json')
      .set('A2A-Version', '1.0')
      .expect(200);
    expect(open.body.supportedInterfaces[0]).toMatchObject({
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    // The protocol's JSON: no tool named (empty lists are left out), the key as a bearer token
    // or the X-API-Key header, either of which will do.
    expect(open.body.skills).toBeUndefined();
    expect(open.body.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('Bearer');
    expect(open.body.securitySchemes.apiKey.apiKeySecurityScheme).toMatchObject({
      location: 'header',
      name: 'X-API-Key',
    });
    expect(open.body.securityRequirements).toHaveLength(2);
    await request(gateway.url).get('/a2a/default/.well-known/agent-card.json').expect(401);
    const card = await (await a2aClient(gateway.url, 'default', asRoot)).getAgentCard();
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${gateway.url}/a2a/default`,
      tenant: TENANT,
    });
    expect(card.skills.map((skill) => skill.id)).toContain('calculator');
    expect(card.capabilities?.streaming).toBe(true);
    // This gateway has no webhook secret to sign with: no push notifications, and it says so.
    expect(card.capabilities?.pushNotifications).toBe(false);
    const client = await a2aClient(gateway.url, 'default', asRoot);
    const refused = await client
      .sendMessage(
        sendParams(userMessage('push me'), {
          taskPushNotificationConfig: {
            tenant: '',
            id: '',
            taskId: '',
            url: 'http://127.0.0.1:9/hook',
            token: '',
            authentication: undefined,
          },
        }),
      )
      .catch((error: unknown) => error);
    expect((refused as Error).constructor.name).toMatch(/PushNotificationNotSupported/);
  });

  it('sends a message: the task is a run whose tool ran in the gateway', async () => {
    const client = await a2aClient(gateway.url, 'default', asRoot);
    const task = await sent(
      client.sendMessage(sendParams(userMessage('/tool calculator {"expression": "6*7"}'))),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toContain('42');
    // The same task through the REST API: a run, its context the run's session.
    const run = await request(gateway.url)
      .get(`/v1/runs/${task.id}?tenant_id=${TENANT}`)
      .set({ Authorization: `Bearer ${ROOT}` })
      .expect(200);
    expect(run.body).toMatchObject({ status: 'completed', session_id: task.contextId });
    expect((await client.getTask({ tenant: '', id: task.id })).status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
    // A follow-up in the same context continues the session.
    const next = await sent(
      client.sendMessage(sendParams(userMessage('and again', { contextId: task.contextId }))),
    );
    expect(next.contextId).toBe(task.contextId);
    const listed = await client.listTasks({
      tenant: '',
      contextId: task.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((t) => t.id).sort()).toEqual([task.id, next.id].sort());
  });

  it('serves the HTTP+JSON binding too: send, get, list and stream', async () => {
    const client = await a2aClient(gateway.url, 'default', asRoot, 'HTTP+JSON');
    const task = await sent(client.sendMessage(sendParams(userMessage('over rest'))));
    expect(answerOf(task)).toBe('over rest');
    const read = await client.getTask({ tenant: '', id: task.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const listed = await client.listTasks({
      tenant: '',
      contextId: task.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
      includeArtifacts: true,
    });
    expect(listed.tasks.map((t) => answerOf(t))).toEqual(['over rest']);
    let text = '';
    for await (const event of client.sendMessageStream(sendParams(userMessage('rest stream')))) {
      if (event.payload?.$case !== 'artifactUpdate') continue;
      for (const part of event.payload.value.artifact?.parts ?? []) {
        if (part.content?.$case === 'text') text += part.content.value;
      }
    }
    expect(text).toBe('rest stream');
  });

  it('accepts a v0.3 client: message/send without A2A-Version', async () => {
    const res = await request(gateway.url)
      .post('/a2a/default')
      .set({ Authorization: `Bearer ${ROOT}`, 'X-Tenant-Id': TENANT })
      .send({
        jsonrpc: '2.0',
        id: 7,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: `legacy-${backend}`,
            role: 'user',
            parts: [{ kind: 'text', text: 'from an older agent' }],
          },
        },
      })
      .expect(200);
    expect(res.body.result).toMatchObject({
      kind: 'task',
      id: `legacy-${backend}`,
      status: { state: 'completed' },
    });
    expect(JSON.stringify(res.body.result.artifacts)).toContain('from an older agent');
  });

  it('streams the task: the answer as artifact updates, then the final status', async () => {
    const client = await a2aClient(gateway.url, 'default', asRoot);
    let text = '';
    const states: TaskState[] = [];
    for await (const event of client.sendMessageStream(
      sendParams(userMessage('stream these words')),
    )) {
      const payload = event.payload;
      if (payload?.$case === 'task') states.push(payload.value.status!.state);
      if (payload?.$case === 'artifactUpdate') {
        for (const part of payload.value.artifact?.parts ?? []) {
          if (part.content?.$case === 'text') text += part.content.value;
        }
      }
      if (payload?.$case === 'statusUpdate') states.push(payload.value.status!.state);
    }
    expect(text).toBe('stream these words');
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a graph paused for approval is input-required, and a message with the decision finishes it', async () => {
    const client = await a2aClient(gateway.url, 'refunds', asRoot);
    const paused = await sent(client.sendMessage(sendParams(userMessage('order 17'))));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const why = paused.status?.message?.parts[0]?.content;
    expect(why?.$case === 'text' && why.value).toContain('"pay"');
    const done = await sent(
      client.sendMessage(
        sendParams(userMessage('yes', { taskId: paused.id, data: { decision: 'approve' } })),
      ),
    );
    expect(done.id).toBe(paused.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(done)).toContain('paid');
  });

  it('cancels a task waiting for input; an unknown task is TaskNotFound', async () => {
    const client = await a2aClient(gateway.url, 'refunds', asRoot);
    const paused = await sent(client.sendMessage(sendParams(userMessage('order 18'))));
    const cancelled = await client.cancelTask({ tenant: '', id: paused.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const missing = await client
      .getTask({ tenant: '', id: 'no-such-task' })
      .catch((error: unknown) => error);
    expect((missing as Error).constructor.name).toMatch(/TaskNotFound/);
    const again = await client
      .cancelTask({ tenant: '', id: paused.id, metadata: undefined })
      .then((task) => task.status?.state);
    expect(again).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("keeps a tenant-bound key inside its tenant: it neither reads nor sends to another's", async () => {
    const client = await a2aClient(gateway.url, 'default', asRoot);
    const acmeTask = await sent(client.sendMessage(sendParams(userMessage('acme only'))));
    const asB = keyedFetch(KEY_B);
    const bClient = await a2aClient(gateway.url, 'default', asB);
    expect((await bClient.getAgentCard()).supportedInterfaces[0].tenant).toBe('b');
    const read = await bClient
      .getTask({ tenant: '', id: acmeTask.id })
      .catch((error: unknown) => error);
    expect((read as Error).constructor.name).toMatch(/TaskNotFound/);
    const across = await bClient
      .sendMessage({ ...sendParams(userMessage('x')), tenant: TENANT })
      .catch((error: unknown) => error);
    expect(String((across as Error).message)).toContain('may only act for tenant "b"');
    // Its card for another tenant's agent is refused outright.
    await request(gateway.url)
      .get('/a2a/default/.well-known/agent-card.json')
      .set({ Authorization: `Bearer ${KEY_B}`, 'X-Tenant-Id': TENANT })
      .expect(403);
  });
});

describe('A2A tasks across replicas (postgres)', () => {
  let fixture: BackendFixture;
  let replicas: RunningGateway[];
  let gate: GatedEndpoint;

  beforeAll(async () => {
    gate = await startGatedEndpoint();
    fixture = await createBackend('postgres');
    const env = { ...fixture.env, SVC_API_KEY: ROOT };
    replicas = [await startGateway(env), await startGateway(env)];
    // A tool that holds its call until the test lets it go: the task is working meanwhile.
    await request(replicas[0].url)
      .put('/v1/toolsets/ops/tools/slow')
      .set({ Authorization: `Bearer ${ROOT}` })
      .send({
        tenant_id: TENANT,
        description: 'waits for the test',
        parameters: { type: 'object', properties: {} },
        endpoint: { url: gate.url },
      })
      .expect(200);
  });
  afterAll(async () => {
    await Promise.all((replicas ?? []).map((replica) => replica.close()));
    await fixture?.cleanup();
    await gate?.close();
  });

  it('a task sent to one replica is read, listed and streamed on the other', async () => {
    const withOps = keyedFetch(ROOT, { 'X-Tenant-Id': TENANT, 'X-Toolset': 'ops' });
    const [a, b] = await Promise.all(
      replicas.map((replica) => a2aClient(replica.url, 'default', withOps)),
    );
    const task = await sent(
      a.sendMessage(sendParams(userMessage('/tool slow {}'), { returnImmediately: true })),
    );
    await gate.arrived();
    const states: TaskState[] = [];
    const following = (async () => {
      for await (const event of b.resubscribeTask({ tenant: '', id: task.id })) {
        if (event.payload?.$case === 'task') states.push(event.payload.value.status!.state);
        if (event.payload?.$case === 'statusUpdate') {
          states.push(event.payload.value.status!.state);
        }
      }
    })();
    // The subscription's first event (the working task) is there before the tool answers.
    await waitUntil(() => states.length > 0, 'the subscription opens');
    gate.release();
    await following;
    expect(states).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    const final = await b.getTask({ tenant: '', id: task.id });
    expect(answerOf(final)).toContain('released');
    const listed = await b.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_COMPLETED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((t) => t.id)).toContain(task.id);
  });
});
