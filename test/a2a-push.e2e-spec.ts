import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Task, TaskState } from '@a2a-js/sdk';
import request from 'supertest';
import { a2aClient, isTask, keyedFetch, sendParams, userMessage } from './support/a2a-client.js';
import { BACKENDS } from './support/backends.js';
import { waitUntil } from './support/chat-server.js';
import { refundGraph } from './support/graphs.js';
import { writeKeysFile } from './support/keys-file.js';
import { gatewayForSuite } from './support/suite.js';

/**
 * A2A push notifications through the gateway's durable webhook outbox: the task as a v1
 * `StreamResponse`, the client's token in `X-A2A-Notification-Token`, and the Standard Webhooks
 * signature of every run webhook.
 */
const KEY = 'a2a-push-root-key';
const SECRET = 'whsec-a2a-push-secret-0123456789';
const TENANT = 'acme';
const asRoot = keyedFetch(KEY, { 'X-Tenant-Id': TENANT });
const KEY_B = 'a2a-push-tenant-b-key';
const keysFile = writeKeysFile({
  keys: [{ id: 'b-operator', key: KEY_B, tenant_id: 'b', roles: ['operator'] }],
});

interface Notification {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: { task?: { id: string; status: { state: string } } };
}

async function startReceiver() {
  const received: Notification[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({
        path: req.url ?? '/',
        headers: req.headers,
        raw,
        body: JSON.parse(raw) as Notification['body'],
      });
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    to: (path: string) => received.filter((notification) => notification.path === path),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function signed(notification: Notification): boolean {
  const id = String(notification.headers['webhook-id']);
  const timestamp = String(notification.headers['webhook-timestamp']);
  const expected = createHmac('sha256', SECRET)
    .update(`${id}.${timestamp}.${notification.raw}`)
    .digest('base64');
  return notification.headers['webhook-signature'] === `v1,${expected}`;
}

const push = (url: string, token: string) => ({
  tenant: '',
  id: '',
  taskId: '',
  url,
  token,
  authentication: undefined,
});

describe.each(BACKENDS)('A2A push notifications (%s)', (backend) => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: KEY,
    SVC_KEYS_FILE: keysFile,
    SVC_RUN_WEBHOOK_SECRET: SECRET,
    SVC_OUTBOX_POLL_MS: '100',
  }));

  beforeAll(async () => {
    receiver = await startReceiver();
    await request(gateway.url)
      .put('/v1/agents/refunds')
      .set({ Authorization: `Bearer ${KEY}` })
      .send(refundGraph(TENANT))
      .expect(200);
  });
  afterAll(() => receiver?.close());

  it('a message with a push configuration: the ended task reaches the URL, signed, with the token', async () => {
    const client = await a2aClient(gateway.url, 'default', asRoot);
    expect((await client.getAgentCard()).capabilities?.pushNotifications).toBe(true);
    const path = `/sent-${backend}`;
    const task = (await client.sendMessage(
      sendParams(userMessage('notify me'), {
        taskPushNotificationConfig: push(`${receiver.url}${path}`, 'tok-1'),
      }),
    )) as Task;
    await waitUntil(() => receiver.to(path).length > 0, 'the notification arrives');
    const [notification] = receiver.to(path);
    expect(notification.body.task).toMatchObject({
      id: task.id,
      status: { state: 'TASK_STATE_COMPLETED' },
    });
    expect(notification.headers['x-a2a-notification-token']).toBe('tok-1');
    expect(signed(notification)).toBe(true);
  });

  it('a configuration set on a waiting task is read back, and its end is notified', async () => {
    const client = await a2aClient(gateway.url, 'refunds', asRoot);
    const paused = await client.sendMessage(sendParams(userMessage('order 30')));
    if (!isTask(paused)) throw new Error('expected a task');
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const path = `/later-${backend}`;
    const config = await client.createTaskPushNotificationConfig({
      ...push(`${receiver.url}${path}`, 'tok-2'),
      taskId: paused.id,
    });
    expect(config).toMatchObject({ taskId: paused.id, url: `${receiver.url}${path}` });
    const listed = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: paused.id,
      pageSize: 10,
      pageToken: '',
    });
    expect(listed.configs.map((c) => c.token)).toEqual(['tok-2']);
    await client.sendMessage(
      sendParams(userMessage('ok', { taskId: paused.id, data: { decision: 'approve' } })),
    );
    await waitUntil(() => receiver.to(path).length > 0, 'the end of the task is notified');
    expect(receiver.to(path)[0].body.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a deleted configuration notifies nothing', async () => {
    const client = await a2aClient(gateway.url, 'refunds', asRoot);
    const paused = await client.sendMessage(sendParams(userMessage('order 31')));
    if (!isTask(paused)) throw new Error('expected a task');
    const path = `/deleted-${backend}`;
    const config = await client.createTaskPushNotificationConfig({
      ...push(`${receiver.url}${path}`, 'tok-3'),
      taskId: paused.id,
    });
    await client.deleteTaskPushNotificationConfig({
      tenant: '',
      taskId: paused.id,
      id: config.id,
    });
    await client.cancelTask({ tenant: '', id: paused.id, metadata: undefined });
    // The outbox polls every 100 ms: a second is ten chances to have sent it.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.to(path)).toEqual([]);
  });

  it('refuses an address it may not call, saying why (scheme, the egress policy)', async () => {
    const client = await a2aClient(gateway.url, 'refunds', asRoot);
    const paused = await client.sendMessage(sendParams(userMessage('order 32')));
    if (!isTask(paused)) throw new Error('expected a task');
    const refusal = async (url: string) => {
      const error = await client
        .createTaskPushNotificationConfig({ ...push(url, 't'), taskId: paused.id })
        .catch((caught: unknown) => caught);
      expect((error as Error).constructor.name).toMatch(/RequestMalformed/);
      return (error as Error).message;
    };
    expect(await refusal('file:///etc/passwd')).toContain('only http and https');
    expect(await refusal('ftp://127.0.0.1/x')).toContain('only http and https');
    expect(await refusal('http://169.254.169.254/latest/meta-data')).toMatch(/link-local|metadata/);
    expect(await refusal(`http://127.0.0.1/${'x'.repeat(2100)}`)).toContain('2048');
    // The same on a new message's configuration, and on POST /v1/agent/run's webhook.
    const onSend = await client
      .sendMessage(
        sendParams(userMessage('x'), {
          taskPushNotificationConfig: push('file:///etc/passwd', ''),
        }),
      )
      .catch((caught: unknown) => caught);
    expect((onSend as Error).message).toContain('only http and https');
    const rest = await request(gateway.url)
      .post('/v1/agent/run')
      .set({ Authorization: `Bearer ${KEY}` })
      .send({ tenant_id: TENANT, prompt: 'x', webhook: 'http://169.254.169.254/hook' })
      .expect(400);
    expect(rest.body.detail).toMatch(/webhook address refused: .*(link-local|metadata)/);
    expect(
      (
        await client.listTaskPushNotificationConfig({
          tenant: '',
          taskId: paused.id,
          pageSize: 10,
          pageToken: '',
        })
      ).configs,
    ).toEqual([]);
  });

  it("keeps a tenant-bound key away from another tenant's push configurations", async () => {
    const client = await a2aClient(gateway.url, 'refunds', asRoot);
    const paused = await client.sendMessage(sendParams(userMessage('order 33')));
    if (!isTask(paused)) throw new Error('expected a task');
    const path = `/isolated-${backend}`;
    const config = await client.createTaskPushNotificationConfig({
      ...push(`${receiver.url}${path}`, 'secret-token'),
      taskId: paused.id,
    });
    // Tenant b has an agent of the same name: its endpoint exists, acme's tasks are not its.
    await request(gateway.url)
      .put('/v1/agents/refunds')
      .set({ Authorization: `Bearer ${KEY}` })
      .send(refundGraph('b'))
      .expect(200);
    const asB = await a2aClient(gateway.url, 'refunds', keyedFetch(KEY_B));
    const attempts: Array<[string, () => Promise<unknown>]> = [
      [
        'get',
        () => asB.getTaskPushNotificationConfig({ tenant: '', taskId: paused.id, id: config.id }),
      ],
      [
        'list',
        () =>
          asB.listTaskPushNotificationConfig({
            tenant: '',
            taskId: paused.id,
            pageSize: 10,
            pageToken: '',
          }),
      ],
      [
        'create',
        () =>
          asB.createTaskPushNotificationConfig({
            ...push(`${receiver.url}/stolen`, 'x'),
            taskId: paused.id,
          }),
      ],
      [
        'delete',
        () =>
          asB.deleteTaskPushNotificationConfig({ tenant: '', taskId: paused.id, id: config.id }),
      ],
    ];
    for (const [what, attempt] of attempts) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect([what, (error as Error).constructor.name]).toEqual([
        what,
        expect.stringMatching(/TaskNotFound/),
      ]);
    }
    // Naming the tenant outright is refused.
    const named = await asB
      .getTaskPushNotificationConfig({ tenant: TENANT, taskId: paused.id, id: config.id })
      .catch((caught: unknown) => caught);
    expect((named as Error).message).toContain('may only act for tenant "b"');
    // acme's configuration is intact.
    const still = await client.getTaskPushNotificationConfig({
      tenant: '',
      taskId: paused.id,
      id: config.id,
    });
    expect(still.token).toBe('secret-token');
    await client.cancelTask({ tenant: '', id: paused.id, metadata: undefined });
  });
});
