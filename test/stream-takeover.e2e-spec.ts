import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { type BackendFixture, createBackend } from './support/backends.js';
import { collect, spawnSvc, waitReady } from './support/cli.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { waitUntil } from './support/chat-server.js';
import { freePort } from './support/net.js';
import { type ReceivedEvent, readEvents } from './support/sse-client.js';
import {
  type ToolEndpoint,
  registerRouteTool,
  startToolEndpoint,
} from './support/tool-endpoint.js';

const KEY = 'stream-takeover-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';
const LEASE_TTL_MS = 2000;

const ids = (events: ReceivedEvent[]) => events.map((event) => Number(event.id));

describe('a streamed run whose owner is killed mid-stream (PostgreSQL, real replicas)', () => {
  let fixture: BackendFixture;
  let endpoint: ToolEndpoint;
  let survivor: RunningGateway;
  let owner: ChildProcess | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    endpoint = await startToolEndpoint();
    fixture = await createBackend('postgres');
    env = { ...fixture.env, SVC_API_KEY: KEY, SVC_LEASE_TTL_MS: String(LEASE_TTL_MS) };
    survivor = await startGateway(env);
    // Its first call never answers (the owner dies inside it); the taker-over's call does.
    await registerRouteTool(endpoint, survivor.url, auth, {
      tenant: TENANT,
      name: 'work',
      route: '/hold-first/stream',
    });
  });
  afterAll(async () => {
    owner?.kill('SIGKILL');
    await survivor?.close();
    await fixture?.cleanup();
    await endpoint?.close();
  });

  it('the stream resumed on a survivor goes on through the takeover to run.settled, each event once', async () => {
    const port = await freePort();
    owner = spawnSvc(['serve', '--port', String(port)], env);
    void collect(owner, 60_000);
    const ownerUrl = `http://127.0.0.1:${port}`;
    await waitReady(ownerUrl);

    const runId = 'streamed-takeover';
    const before = await readEvents(`${ownerUrl}/v1/agent/run`, {
      method: 'POST',
      headers: auth,
      body: {
        tenant_id: TENANT,
        toolset: 'ops',
        prompt: '/tool work {}',
        run_id: runId,
        stream: true,
      },
      until: (event) => event.event === 'tool.started',
    });
    // The echo model streams its tool call as one chunk before the call starts.
    expect(before.events.map((event) => event.event)).toEqual([
      'run.started',
      'model.delta',
      'tool.started',
    ]);
    // `tool.started` is written just before the request goes out: the owner dies inside the
    // call only once the endpoint holds it (else the taker-over's call would be the first).
    await waitUntil(
      () => endpoint.received.some((call) => call.path === '/hold-first/stream'),
      'the owner calls the tool',
    );
    owner.kill('SIGKILL');

    const after = await readEvents(`${survivor.url}/v1/runs/${runId}/events?tenant_id=${TENANT}`, {
      headers: { ...auth, 'Last-Event-ID': before.lastEventId! },
      timeoutMs: 30_000,
    });
    const all = [...before.events, ...after.events];
    expect(ids(all)).toEqual(all.map((_, i) => i + 1));
    const types = after.events.map((event) => event.event);
    expect(types[0]).toBe('run.taken_over');
    expect(types).toContain('tool.finished');
    expect(types.at(-1)).toBe('run.settled');
    const settled = (after.events.at(-1)!.json as { data: { run: RunRecord } }).data.run;
    expect(settled).toMatchObject({ run_id: runId, status: 'completed', tool_calls: 1 });
    expect(settled.text).toContain('released');
  });
});
