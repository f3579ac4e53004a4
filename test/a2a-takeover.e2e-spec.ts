import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { type Task, TaskState } from '@a2a-js/sdk';
import {
  a2aClient,
  answerOf,
  isTask,
  keyedFetch,
  sendParams,
  userMessage,
} from './support/a2a-client.js';
import { type BackendFixture, createBackend } from './support/backends.js';
import { waitUntil } from './support/chat-server.js';
import { collect, spawnSvc, waitReady } from './support/cli.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { freePort } from './support/net.js';
import {
  type ToolEndpoint,
  registerRouteTool,
  startToolEndpoint,
} from './support/tool-endpoint.js';

/**
 * What the SDK's in-memory task store cannot do: the replica running an A2A task dies by
 * SIGKILL inside a tool call, another takes the run over from its checkpoint, and every
 * surviving replica answers GetTask with the completed task.
 */
const KEY = 'a2a-takeover-root-key';
const TENANT = 'acme';
const LEASE_TTL_MS = 2000;

describe('an A2A task whose replica is killed (PostgreSQL, real replicas)', () => {
  let fixture: BackendFixture;
  let endpoint: ToolEndpoint;
  let survivors: RunningGateway[];
  let owner: ChildProcess | undefined;
  const env = () => ({ ...fixture.env, SVC_API_KEY: KEY, SVC_LEASE_TTL_MS: String(LEASE_TTL_MS) });
  const asRoot = keyedFetch(KEY, { 'X-Tenant-Id': TENANT, 'X-Toolset': 'ops' });

  beforeAll(async () => {
    endpoint = await startToolEndpoint();
    fixture = await createBackend('postgres');
    survivors = [await startGateway(env()), await startGateway(env())];
    await registerRouteTool(
      endpoint,
      survivors[0].url,
      { Authorization: `Bearer ${KEY}` },
      {
        tenant: TENANT,
        name: 'work_a2a',
        route: '/hold-first/a2a',
      },
    );
  });
  afterAll(async () => {
    owner?.kill('SIGKILL');
    await Promise.all((survivors ?? []).map((gateway) => gateway.close()));
    await fixture?.cleanup();
    await endpoint?.close();
  });

  it('kill -9 of the replica running the task: it completes on another, and any replica shows it', async () => {
    const port = await freePort();
    owner = spawnSvc(['serve', '--port', String(port)], env());
    const exited = collect(owner, 60_000);
    const ownerUrl = `http://127.0.0.1:${port}`;
    await waitReady(ownerUrl);

    const client = await a2aClient(ownerUrl, 'default', asRoot);
    const started = await client.sendMessage(
      sendParams(userMessage('/tool work_a2a {}'), { returnImmediately: true }),
    );
    if (!isTask(started)) throw new Error('expected a task');
    await waitUntil(
      () => endpoint.received.some((call) => call.path === '/hold-first/a2a'),
      'the owner is inside the tool call',
      15_000,
    );
    owner.kill('SIGKILL');
    expect((await exited).signal).toBe('SIGKILL');

    const readers = await Promise.all(
      survivors.map((gateway) => a2aClient(gateway.url, 'default', asRoot)),
    );
    let seen: Task | undefined;
    await waitUntil(
      async () => {
        seen = await readers[0].getTask({ tenant: '', id: started.id });
        return seen.status?.state === TaskState.TASK_STATE_COMPLETED;
      },
      'the task completes on a survivor',
      30_000,
    );
    expect(answerOf(seen!)).toContain('released');
    const elsewhere = await readers[1].getTask({ tenant: '', id: started.id });
    expect(elsewhere.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(elsewhere)).toBe(answerOf(seen!));
    // The tool call in flight ran again after the takeover, with the same Idempotency-Key.
    const calls = endpoint.received.filter((call) => call.path === '/hold-first/a2a');
    expect(calls).toHaveLength(2);
    expect(calls[1].headers['idempotency-key']).toBe(calls[0].headers['idempotency-key']);
  }, 60_000);
});
