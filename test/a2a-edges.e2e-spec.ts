import { describe, expect, it, beforeAll } from '@jest/globals';
import { TaskState } from '@a2a-js/sdk';
import { LegacyJsonRpcTransport, LegacyRestTransport } from '@a2a-js/sdk/compat/v0_3/client';
import request from 'supertest';
import { StateDatabase } from '../src/platform/state/state-database.service.js';
import {
  a2aClient,
  answerOf,
  isTask,
  keyedFetch,
  sendParams,
  userMessage,
} from './support/a2a-client.js';
import { jsonMessage, rpc } from './support/a2a-rpc.js';
import { BACKENDS } from './support/backends.js';
import { refundGraph } from './support/graphs.js';
import { writeKeysFile } from './support/keys-file.js';
import { gatewayForSuite } from './support/suite.js';

/**
 * A2A's edges: every client error as the A2A error of its binding (never an internal error),
 * the input bound and run ids shared with the other wires, idempotent decisions, the HTTP+JSON
 * binding's tenant in the path, and v0.3 clients of both bindings through the SDK's compat layer.
 */
const ROOT = 'a2a-edges-root-key';
const RUNNER = 'a2a-edges-runner-key';
const KEY_B = 'a2a-edges-tenant-b-key';
const TENANT = 'acme';
const keysFile = writeKeysFile({
  keys: [
    { id: 'acme-runner', key: RUNNER, tenant_id: TENANT, roles: ['runner'] },
    { id: 'b-operator', key: KEY_B, tenant_id: 'b', roles: ['operator'] },
  ],
});
const asRoot = { Authorization: `Bearer ${ROOT}`, 'X-Tenant-Id': TENANT };

describe.each(BACKENDS)('A2A edges (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, { SVC_API_KEY: ROOT, SVC_KEYS_FILE: keysFile });
  const rows = async (taskId: string) =>
    (
      await gateway.app
        .get(StateDatabase)
        .query(
          'SELECT task_id FROM a2a_tasks WHERE task_id = ' + (backend === 'postgres' ? '$1' : '?'),
          [taskId],
        )
    ).records.length;

  beforeAll(async () => {
    await request(gateway.url)
      .put('/v1/agents/refunds')
      .set({ Authorization: `Bearer ${ROOT}` })
      .send(refundGraph(TENANT))
      .expect(200);
  });

  it('answers malformed JSON with -32700 and invalid parameters with -32602', async () => {
    const parse = await request(gateway.url)
      .post('/a2a/default')
      .set({ ...asRoot, 'Content-Type': 'application/json', 'A2A-Version': '1.0' })
      .send('{"jsonrpc": "2.0", "id": 1, "method": ')
      .expect(400);
    expect(parse.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    // A body over SVC_MAX_BODY_BYTES, and malformed JSON on the HTTP+JSON binding.
    const huge = await request(gateway.url)
      .post('/a2a/default')
      .set({ ...asRoot, 'A2A-Version': '1.0' })
      .send({ jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { x: 'y'.repeat(1_100_000) } })
      .expect(413);
    expect(huge.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    const restParse = await request(gateway.url)
      .post(`/a2a/default/rest/${TENANT}/message:send`)
      .set({
        Authorization: `Bearer ${ROOT}`,
        'A2A-Version': '1.0',
        'Content-Type': 'application/json',
      })
      .send('{"message": ')
      .expect(400);
    expect(restParse.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    const sent = await rpc(gateway.url, 'default', asRoot, 'SendMessage', {
      message: jsonMessage('hello'),
    });
    const taskId = (sent.result?.task as { id: string }).id;
    const invalid = [
      ['GetTask', { id: taskId, historyLength: -1 }, 'historyLength'],
      ['ListTasks', { pageSize: -5 }, 'pageSize'],
      ['ListTasks', { pageSize: 150 }, 'pageSize'],
      ['ListTasks', { pageToken: 'not-a-token' }, 'pageToken'],
      ['ListTasks', { statusTimestampAfter: 'yesterday' }, 'statusTimestampAfter'],
      [
        'SendMessage',
        { message: jsonMessage('hi'), configuration: { historyLength: -2 } },
        'historyLength',
      ],
      ['SendMessage', { message: { ...jsonMessage(''), parts: [] } }, 'text part'],
    ] as const;
    for (const [method, params, said] of invalid) {
      const answer = await rpc(gateway.url, 'default', asRoot, method, params);
      expect({ method, status: answer.status, code: answer.error?.code }).toEqual({
        method,
        status: 200,
        code: -32602,
      });
      expect(answer.error?.message).toContain(said);
    }
    // The same over HTTP+JSON: 400 INVALID_ARGUMENT.
    const rest = await request(gateway.url)
      .get(`/a2a/default/rest/${TENANT}/tasks?pageSize=0`)
      .set({ Authorization: `Bearer ${ROOT}`, 'A2A-Version': '1.0' })
      .expect(400);
    expect(rest.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
  });

  it('an unknown agent is a 404 on both bindings and leaves no task behind', async () => {
    const answer = await rpc(gateway.url, 'nosuchagent', asRoot, 'SendMessage', {
      message: jsonMessage('hi', { messageId: `ghost-${backend}` }),
    });
    expect(answer.status).toBe(404);
    expect(answer.error).toMatchObject({ code: -31404, message: 'no agent "nosuchagent"' });
    const rest = await request(gateway.url)
      .post(`/a2a/nosuchagent/rest/${TENANT}/message:send`)
      .set({ Authorization: `Bearer ${ROOT}`, 'A2A-Version': '1.0' })
      .send({ message: jsonMessage('hi', { messageId: `ghost-rest-${backend}` }) })
      .expect(404);
    expect(rest.body.error).toMatchObject({ status: 'NOT_FOUND' });
    expect(await rows(`ghost-${backend}`)).toBe(0);
    expect(await rows(`ghost-rest-${backend}`)).toBe(0);
  });

  it('bounds a message as every wire does, and a refused message leaves no task', async () => {
    const id = `long-${backend}`;
    const answer = await rpc(gateway.url, 'default', asRoot, 'SendMessage', {
      message: jsonMessage('z'.repeat(200_001), { messageId: id }),
    });
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toContain('at most 200000');
    expect(await rows(id)).toBe(0);
    const rest = await request(gateway.url)
      .post('/v1/agent/run')
      .set(asRoot)
      .send({ tenant_id: TENANT, prompt: 'z'.repeat(200_001) })
      .expect(400);
    expect(rest.body.errors[0].path).toBe('prompt');
  });

  it('a key without approve:* cannot decide: 403, not an internal error', async () => {
    const client = await a2aClient(
      gateway.url,
      'refunds',
      keyedFetch(ROOT, { 'X-Tenant-Id': TENANT }),
    );
    const paused = await client.sendMessage(sendParams(userMessage('order 1')));
    if (!isTask(paused)) throw new Error('expected a task');
    const decision = { data: { decision: 'approve' } };
    const asRunner = { Authorization: `Bearer ${RUNNER}` };
    const answer = await rpc(gateway.url, 'refunds', asRunner, 'SendMessage', {
      message: jsonMessage('yes', { taskId: paused.id, ...decision }),
    });
    expect(answer.status).toBe(403);
    expect(answer.error?.code).toBe(-31403);
    expect(answer.error?.message).toContain('approve:*');
    const rest = await request(gateway.url)
      .post(`/a2a/refunds/rest/${TENANT}/message:send`)
      .set({ ...asRunner, 'A2A-Version': '1.0' })
      .send({ message: jsonMessage('yes', { taskId: paused.id, ...decision }) })
      .expect(403);
    expect(rest.body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
    const still = await client.getTask({ tenant: '', id: paused.id });
    expect(still.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  });

  it('a decision sent again with the same message id answers the task as it stands', async () => {
    const client = await a2aClient(
      gateway.url,
      'refunds',
      keyedFetch(ROOT, { 'X-Tenant-Id': TENANT }),
    );
    const paused = await client.sendMessage(sendParams(userMessage('order 2')));
    if (!isTask(paused)) throw new Error('expected a task');
    const decision = userMessage('yes', {
      taskId: paused.id,
      data: { decision: 'approve' },
      messageId: `decide-${backend}`,
    });
    const first = await client.sendMessage(sendParams(decision));
    const again = await client.sendMessage(sendParams(decision));
    for (const answer of [first, again]) {
      if (!isTask(answer)) throw new Error('expected a task');
      expect(answer.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(answerOf(answer)).toContain('paid');
    }
    // Another message to the finished task is still refused.
    const other = await client
      .sendMessage(
        sendParams(userMessage('yes', { taskId: paused.id, data: { decision: 'approve' } })),
      )
      .catch((error: unknown) => error);
    expect((other as Error).constructor.name).toMatch(/UnsupportedOperation/);
  });

  it('a message id that is another agent’s task is a conflict, not that task', async () => {
    const client = await a2aClient(
      gateway.url,
      'refunds',
      keyedFetch(ROOT, { 'X-Tenant-Id': TENANT }),
    );
    const paused = await client.sendMessage(sendParams(userMessage('order 3')));
    if (!isTask(paused)) throw new Error('expected a task');
    const answer = await rpc(gateway.url, 'default', asRoot, 'SendMessage', {
      message: jsonMessage('hi', { messageId: paused.id }),
    });
    expect(answer.status).toBe(409);
    expect(answer.error?.code).toBe(-31409);
    // Nor does another agent's URL reach the task.
    const read = await rpc(gateway.url, 'default', asRoot, 'GetTask', { id: paused.id });
    expect(read.error?.code).toBe(-32001);
    // The OpenAI wire's Idempotency-Key is the same run id.
    const openai = await request(gateway.url)
      .post('/v1/chat/completions')
      .set({ ...asRoot, 'Idempotency-Key': paused.id })
      .send({ model: 'default', messages: [{ role: 'user', content: 'hi' }] })
      .expect(409);
    expect(openai.body.error.code).toBe('run_id_conflict');
  });

  it('serves the HTTP+JSON binding with the tenant in the path, for unbound and bound keys', async () => {
    // An unbound key: the card names the tenant, the SDK client puts it in every path.
    const cardOnlyTenant: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('Authorization', `Bearer ${ROOT}`);
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (url.endsWith('agent-card.json')) headers.set('X-Tenant-Id', TENANT);
      return fetch(input, { ...init, headers });
    };
    const client = await a2aClient(gateway.url, 'default', cardOnlyTenant, 'HTTP+JSON');
    const sent = await client.sendMessage(sendParams(userMessage('path tenant')));
    if (!isTask(sent)) throw new Error('expected a task');
    expect((await client.getTask({ tenant: TENANT, id: sent.id })).id).toBe(sent.id);
    const listed = await client.listTasks({
      tenant: TENANT,
      contextId: sent.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((task) => task.id)).toEqual([sent.id]);
    await request(gateway.url)
      .get(`/a2a/default/rest/${TENANT}/tasks/${sent.id}`)
      .set({ Authorization: `Bearer ${ROOT}`, 'A2A-Version': '1.0' })
      .expect(200);
    // A bound key naming another tenant in the path is refused, as on every surface.
    const across = await request(gateway.url)
      .get(`/a2a/default/rest/${TENANT}/tasks/${sent.id}`)
      .set({ Authorization: `Bearer ${KEY_B}`, 'A2A-Version': '1.0' })
      .expect(403);
    expect(across.body.error).toMatchObject({ status: 'PERMISSION_DENIED' });
    expect(across.body.error.message).toContain('tenant "b"');
  });

  it('serves v0.3 clients of both bindings: card, send, get, cancel and stream', async () => {
    const legacyCard = await request(gateway.url)
      .get('/a2a/refunds/.well-known/agent-card.json')
      .set(asRoot)
      .expect(200);
    expect(legacyCard.body).toMatchObject({
      protocolVersion: '0.3',
      url: `${gateway.url}/a2a/refunds`,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: `${gateway.url}/a2a/refunds/rest`, transport: 'HTTP+JSON' }],
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    });
    // The X-API-Key scheme the card declares is honoured.
    const fetchImpl = keyedFetch(ROOT, { 'X-Tenant-Id': TENANT });
    const transports = [
      new LegacyJsonRpcTransport({ endpoint: `${gateway.url}/a2a/refunds`, fetchImpl }),
      new LegacyRestTransport({ endpoint: `${gateway.url}/a2a/refunds/rest`, fetchImpl }),
    ];
    for (const transport of transports) {
      const sent = await transport.sendMessage(sendParams(userMessage('order 4')));
      if (!isTask(sent)) throw new Error('expected a task');
      expect(sent.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const read = await transport.getTask({ tenant: '', id: sent.id });
      expect(read.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const cancelled = await transport.cancelTask({
        tenant: '',
        id: sent.id,
        metadata: undefined,
      });
      expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const missing = await transport
        .getTask({ tenant: '', id: 'no-such-task' })
        .catch((error: unknown) => error);
      expect((missing as Error).constructor.name).toMatch(/TaskNotFound/);
    }
    // Streaming too, on both bindings: the answer as artifact updates, then the final status.
    for (const binding of ['', '/rest']) {
      const transport =
        binding === ''
          ? new LegacyJsonRpcTransport({ endpoint: `${gateway.url}/a2a/default`, fetchImpl })
          : new LegacyRestTransport({ endpoint: `${gateway.url}/a2a/default/rest`, fetchImpl });
      let text = '';
      let last: TaskState | undefined;
      for await (const event of transport.sendMessageStream(
        sendParams(userMessage(`legacy stream${binding}`)),
      )) {
        if (event.payload?.$case === 'artifactUpdate') {
          for (const part of event.payload.value.artifact?.parts ?? []) {
            if (part.content?.$case === 'text') text += part.content.value;
          }
        }
        if (event.payload?.$case === 'statusUpdate') last = event.payload.value.status?.state;
      }
      expect([binding, text, last]).toEqual([
        binding,
        `legacy stream${binding}`,
        TaskState.TASK_STATE_COMPLETED,
      ]);
    }
    const viaHeader = await request(gateway.url)
      .post('/a2a/default')
      .set({ 'X-API-Key': ROOT, 'X-Tenant-Id': TENANT })
      .send({
        jsonrpc: '2.0',
        id: 3,
        method: 'tasks/get',
        params: { id: 'no-such-task' },
      })
      .expect(200);
    expect(viaHeader.body.error.code).toBe(-32001);
  });
});
