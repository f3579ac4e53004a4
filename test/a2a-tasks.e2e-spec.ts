import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import request from 'supertest';
import { A2ATaskUpkeep } from '../src/a2a/task-upkeep.js';
import { StateDatabase } from '../src/platform/state/state-database.service.js';
import { a2aClient, isTask, keyedFetch, sendParams, userMessage } from './support/a2a-client.js';
import { jsonMessage, rpc } from './support/a2a-rpc.js';
import { BACKENDS } from './support/backends.js';
import { waitUntil } from './support/chat-server.js';
import { type GatedEndpoint, startGatedEndpoint } from './support/gated-endpoint.js';
import { refundGraph } from './support/graphs.js';
import { writeKeysFile } from './support/keys-file.js';
import { gatewayForSuite } from './support/suite.js';

/**
 * A2A tasks over time: a subscription follows a task from where it stands to its real end
 * (across a decision), ListTasks pages in the database and forgets with the run log's
 * retention, and a tenant-bound key reaches none of another tenant's tasks by any method.
 */
const ROOT = 'a2a-tasks-root-key';
const KEY_B = 'a2a-tasks-tenant-b-key';
const TENANT = 'acme';
const keysFile = writeKeysFile({
  keys: [{ id: 'b-operator', key: KEY_B, tenant_id: 'b', roles: ['operator'] }],
});
const asRoot = keyedFetch(ROOT, { 'X-Tenant-Id': TENANT });
const unspecified = {
  tenant: '',
  contextId: '',
  status: TaskState.TASK_STATE_UNSPECIFIED,
  pageToken: '',
  statusTimestampAfter: undefined,
};

async function sent(promise: Promise<unknown>): Promise<Task> {
  const result = (await promise) as Parameters<typeof isTask>[0];
  if (!isTask(result)) throw new Error('expected a task, got a message');
  return result;
}

/**
 * The states a stream reported, in order: its first task, then each status update. `opened`
 * is called once the first has arrived (the subscription is in place on the server).
 */
async function statesOf(
  stream: AsyncGenerator<StreamResponse>,
  opened?: () => void,
): Promise<TaskState[]> {
  const states: TaskState[] = [];
  for await (const event of stream) {
    if (event.payload?.$case === 'task') states.push(event.payload.value.status!.state);
    if (event.payload?.$case === 'statusUpdate') states.push(event.payload.value.status!.state);
    if (states.length === 1) opened?.();
  }
  return states;
}

describe.each(BACKENDS)('A2A tasks over time (%s)', (backend) => {
  let gate: GatedEndpoint;
  beforeAll(async () => {
    gate = await startGatedEndpoint();
  });
  afterAll(() => gate.close());
  const gateway = gatewayForSuite(backend, { SVC_API_KEY: ROOT, SVC_KEYS_FILE: keysFile });
  const put = (path: string, body: object) =>
    request(gateway.url)
      .put(path)
      .set({ Authorization: `Bearer ${ROOT}` })
      .send(body)
      .expect(200);

  beforeAll(async () => {
    await put('/v1/agents/refunds', refundGraph(TENANT));
    await put('/v1/agents/refunds', refundGraph('b'));
    // A graph whose approved step calls a slow HTTP tool (the gate holds it).
    await put('/v1/toolsets/ops/tools/slow', {
      tenant_id: TENANT,
      description: 'waits for the test',
      parameters: { type: 'object', properties: {} },
      endpoint: { url: gate.url },
    });
    await put('/v1/agents/slowpay', {
      tenant_id: TENANT,
      topology: 'pipeline',
      steps: [
        { id: 'look', kind: 'tool', tool: 'echo', arguments: { text: '{{input}}' } },
        {
          id: 'pay',
          kind: 'tool',
          tool: 'slow',
          toolset: 'ops',
          depends_on: ['look'],
          require_approval: true,
          arguments: {},
        },
      ],
    });
  });

  it('a subscription to a task resumed after its decision follows it to its real end', async () => {
    const client = await a2aClient(gateway.url, 'slowpay', asRoot);
    const paused = await sent(client.sendMessage(sendParams(userMessage('order 1'))));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // Waiting for input: the subscription answers the task as it stands and ends.
    expect(await statesOf(client.resubscribeTask({ tenant: '', id: paused.id }))).toEqual([
      TaskState.TASK_STATE_INPUT_REQUIRED,
    ]);
    // The decision runs the slow step; meanwhile a subscriber joins.
    const deciding = client.sendMessage(
      sendParams(userMessage('yes', { taskId: paused.id, data: { decision: 'approve' } })),
    );
    await gate.arrived();
    let subscribed!: () => void;
    const open = new Promise<void>((resolve) => (subscribed = resolve));
    const following = statesOf(client.resubscribeTask({ tenant: '', id: paused.id }), () =>
      subscribed(),
    );
    // The subscription is open before the tool answers (its first event has arrived, so the
    // step cannot end before the server has it): that event is the working task.
    await Promise.race([open, following]);
    const working = await client.getTask({ tenant: '', id: paused.id });
    expect(working.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    gate.release();
    const states = await following;
    expect(states[0]).toBe(TaskState.TASK_STATE_WORKING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(states).not.toContain(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect((await sent(deciding)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // A task that ended is not subscribed to (A2A 3.1.6): GetTask reads it.
    const ended = await statesOf(client.resubscribeTask({ tenant: '', id: paused.id })).catch(
      (error: unknown) => error,
    );
    expect((ended as Error).constructor.name).toMatch(/UnsupportedOperation/);
  });

  it('lists one agent’s tasks a page at a time, newest first, with filters and a cursor', async () => {
    const client = await a2aClient(gateway.url, 'default', asRoot);
    const context = `listing-${backend}`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const task = await sent(
        client.sendMessage(sendParams(userMessage(`task ${i}`, { contextId: context }))),
      );
      ids.push(task.id);
    }
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await client.listTasks({
        ...unspecified,
        contextId: context,
        pageSize: 2,
        pageToken,
      });
      expect(page.totalSize).toBe(5);
      expect(page.pageSize).toBe(2);
      seen.push(...page.tasks.map((task) => task.id));
      pageToken = page.nextPageToken;
      pages += 1;
    } while (pageToken);
    expect(pages).toBe(3);
    expect(new Set(seen)).toEqual(new Set(ids));
    const stamps = (await client.listTasks({ ...unspecified, contextId: context })).tasks.map(
      (task) => Date.parse(task.status!.timestamp!),
    );
    expect([...stamps].sort((a, b) => b - a)).toEqual(stamps);
    // Filters: another state, and a time after every task.
    const working = await client.listTasks({
      ...unspecified,
      contextId: context,
      status: TaskState.TASK_STATE_WORKING,
    });
    expect(working).toMatchObject({ tasks: [], totalSize: 0, nextPageToken: '' });
    const later = await client.listTasks({
      ...unspecified,
      contextId: context,
      statusTimestampAfter: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(later.tasks).toEqual([]);
    // Another agent's listing has none of them.
    const refunds = await a2aClient(gateway.url, 'refunds', asRoot);
    expect((await refunds.listTasks({ ...unspecified, contextId: context })).tasks).toEqual([]);
  });

  it('lists a task waiting for its context while another one holds it, then both ended', async () => {
    const withOps = keyedFetch(ROOT, { 'X-Tenant-Id': TENANT, 'X-Toolset': 'ops' });
    const client = await a2aClient(gateway.url, 'default', withOps);
    const context = `waiting-${backend}`;
    const send = (text: string) =>
      sent(
        client.sendMessage(
          sendParams(userMessage(text, { contextId: context }), { returnImmediately: true }),
        ),
      );
    const first = await send('/tool slow {}');
    await gate.arrived();
    const second = await send('after the first');
    expect(second.status!.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    const listed = async () =>
      (await client.listTasks({ ...unspecified, contextId: context })).tasks
        .map((task) => `${task.id} ${TaskState[task.status!.state]}`)
        .sort();
    // A task's row is written as it is recorded, not before its answer: listed a moment later.
    const listedAs = (states: string[], what: string) =>
      waitUntil(async () => JSON.stringify(await listed()) === JSON.stringify(states.sort()), what);
    await listedAs(
      [`${first.id} TASK_STATE_WORKING`, `${second.id} TASK_STATE_SUBMITTED`],
      'the waiting task is listed as submitted',
    );
    gate.release();
    await listedAs(
      [`${first.id} TASK_STATE_COMPLETED`, `${second.id} TASK_STATE_COMPLETED`],
      'both tasks are listed completed',
    );
  });

  it('forgets listed tasks with the run log’s retention; the tasks themselves stay readable', async () => {
    const client = await a2aClient(gateway.url, 'default', asRoot);
    const context = `retention-${backend}`;
    const task = await sent(
      client.sendMessage(sendParams(userMessage('old news', { contextId: context }))),
    );
    const database = gateway.app.get(StateDatabase);
    const p = (n: number) => (backend === 'postgres' ? `$${n}` : '?');
    // The row follows the settled run after the answer (A2ATaskUpkeep): once it has, nothing
    // writes it again, so what is set below stays set.
    const settledRow = async () => {
      const { records } = await database.query(
        `SELECT status FROM a2a_tasks WHERE context_id = ${p(1)}`,
        [context],
      );
      return (records as Array<{ status: string }>)[0]?.status === 'completed';
    };
    await waitUntil(settledRow, 'the task row follows its settled run', 5_000);
    // Eight days ago, past the default retention of seven.
    await database.query(`UPDATE a2a_tasks SET status_at = ${p(1)} WHERE context_id = ${p(2)}`, [
      Date.now() - 8 * 24 * 3_600_000,
      context,
    ]);
    expect(await gateway.app.get(A2ATaskUpkeep).prune()).toBeGreaterThanOrEqual(1);
    const rows = await database.query(`SELECT task_id FROM a2a_tasks WHERE context_id = ${p(1)}`, [
      context,
    ]);
    expect(rows.records).toEqual([]);
    expect((await client.listTasks({ ...unspecified, contextId: context })).tasks).toEqual([]);
    expect((await client.getTask({ tenant: '', id: task.id })).id).toBe(task.id);
  });

  it("keeps a tenant-bound key away from another tenant's tasks by every method", async () => {
    const acme = await a2aClient(gateway.url, 'refunds', asRoot);
    const paused = await sent(acme.sendMessage(sendParams(userMessage('order 9'))));
    const asB = await a2aClient(gateway.url, 'refunds', keyedFetch(KEY_B));
    // Its own listing: none of acme's tasks.
    const listed = await asB.listTasks(unspecified);
    expect(listed.tasks.map((task) => task.id)).not.toContain(paused.id);
    const refused = async (what: string, attempt: () => Promise<unknown>) => {
      const error = await attempt().catch((caught: unknown) => caught);
      return [what, (error as Error).constructor.name];
    };
    const drain = async (stream: AsyncGenerator<StreamResponse>) => {
      for await (const event of stream) void event;
    };
    for (const [what, name] of [
      await refused('get', () => asB.getTask({ tenant: '', id: paused.id })),
      await refused('cancel', () =>
        asB.cancelTask({ tenant: '', id: paused.id, metadata: undefined }),
      ),
      await refused('subscribe', () => drain(asB.resubscribeTask({ tenant: '', id: paused.id }))),
      await refused('decide', () =>
        asB.sendMessage(
          sendParams(userMessage('yes', { taskId: paused.id, data: { decision: 'approve' } })),
        ),
      ),
    ]) {
      expect([what, name]).toEqual([what, expect.stringMatching(/TaskNotFound/)]);
    }
    // Naming acme outright: refused (403 over JSON-RPC), whichever method.
    const asBHeaders = { Authorization: `Bearer ${KEY_B}` };
    for (const [method, params] of [
      ['ListTasks', { tenant: TENANT }],
      ['CancelTask', { tenant: TENANT, id: paused.id }],
      ['SendMessage', { tenant: TENANT, message: jsonMessage('hi') }],
    ] as const) {
      const answer = await rpc(gateway.url, 'refunds', asBHeaders, method, params);
      expect([method, answer.status, answer.error?.code]).toEqual([method, 403, -31403]);
    }
    const subscribe = await request(gateway.url)
      .post('/a2a/refunds')
      .set({ ...asBHeaders, 'A2A-Version': '1.0' })
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'SubscribeToTask',
        params: { tenant: TENANT, id: paused.id },
      });
    expect(subscribe.status).toBe(403);
    // acme's task is as it was.
    expect((await acme.getTask({ tenant: '', id: paused.id })).status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    await acme.cancelTask({ tenant: '', id: paused.id, metadata: undefined });
  });
});
