import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import request from 'supertest';
import type { ChatMessage } from '../src/providers/chat.types.js';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { type BackendFixture, createBackend } from './support/backends.js';
import { waitUntil } from './support/chat-server.js';
import { type CliResult, collect, spawnSvc, waitReady } from './support/cli.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { MockModel, type SeenRequest, completion, lastUserText } from './support/mock-model.js';
import { freePort } from './support/net.js';
import { dsnFor } from './support/postgres.js';
import { TcpProxy } from './support/tcp-proxy.js';
import {
  type ReceivedCall,
  type ToolEndpoint,
  registerRouteTool,
  startToolEndpoint,
} from './support/tool-endpoint.js';

const KEY = 'plain-takeover-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';
// 2 s rather than 1: under a loaded suite a renewal can wait that long for a pooled connection.
const LEASE_TTL_MS = 2000;

/**
 * The model of every case: the prompt `case <name>` makes it call `fetch` (a quick tool), then
 * `work_<name>` (a tool whose first call never answers: the owner stops inside it), then answer
 * `done <name>`. What it answers depends only on the conversation, so the replica that takes a
 * run over gets the same answers the owner would have got.
 */
function script(req: SeenRequest) {
  const name = lastUserText(req).replace(/^case /, '');
  const messages = (req.body.messages ?? []) as ChatMessage[];
  const results = messages.filter((message) => message.role === 'tool').length;
  if (results === 0) {
    return {
      body: completion(null, [
        { id: 'call_fetch', name: 'fetch', arguments: JSON.stringify({ case: name }) },
      ]),
    };
  }
  if (results === 1) {
    return { body: completion(null, [{ id: 'call_work', name: `work_${name}`, arguments: '{}' }]) };
  }
  return { body: completion(`done ${name}`) };
}

interface Owner {
  child: ChildProcess;
  url: string;
  exited: Promise<CliResult>;
}

describe('a plain agent run whose owner stops mid tool call (PostgreSQL, real replicas)', () => {
  let fixture: BackendFixture;
  let endpoint: ToolEndpoint;
  const model = new MockModel();
  let survivor: RunningGateway;
  const owners: ChildProcess[] = [];
  const env = () => ({
    ...fixture.env,
    SVC_API_KEY: KEY,
    SVC_LEASE_TTL_MS: String(LEASE_TTL_MS),
    SVC_PROVIDER_URL: `${model.url}/v1`,
  });

  beforeAll(async () => {
    await model.start();
    model.reset(script);
    endpoint = await startToolEndpoint();
    fixture = await createBackend('postgres');
    survivor = await startGateway(env());
    await registerRouteTool(endpoint, survivor.url, auth, {
      tenant: TENANT,
      name: 'fetch',
      route: '/echo',
    });
  });
  afterAll(async () => {
    for (const child of owners) child.kill('SIGKILL');
    await survivor?.close();
    await fixture?.cleanup();
    await endpoint?.close();
    await model.close();
  });

  /** A real `svc serve` process (so that it can die by SIGKILL), sharing the database. */
  async function startOwner(extra: Record<string, string> = {}): Promise<Owner> {
    const port = await freePort();
    const child = spawnSvc(['serve', '--port', String(port)], { ...env(), ...extra });
    owners.push(child);
    const exited = collect(child, 60_000);
    const url = `http://127.0.0.1:${port}`;
    await waitReady(url);
    return { child, url, exited };
  }

  const runBody = (name: string) => ({
    tenant_id: TENANT,
    toolset: 'ops',
    prompt: `case ${name}`,
    run_id: `plain-${name}`,
  });

  /**
   * Starts the case's run on `owner` and waits until the owner is inside the slow tool call;
   * `answer` is what the run's caller gets.
   */
  async function startRunInside(
    name: string,
    owner: Owner,
  ): Promise<{ answer: Promise<Response | Error>; spentBefore: Totals }> {
    const spentBefore = await spent();
    await registerRouteTool(endpoint, survivor.url, auth, {
      tenant: TENANT,
      name: `work_${name}`,
      route: `/hold-first/${name}`,
    });
    const answer = fetch(`${owner.url}/v1/agent/run`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(runBody(name)),
    }).catch((error: Error) => error);
    await waitUntil(
      () => endpoint.received.some((call) => call.path === `/hold-first/${name}`),
      `${name}: the owner is inside the slow tool call`,
      15_000,
    );
    return { answer, spentBefore };
  }

  interface Totals {
    prompt_tokens: number;
    completion_tokens: number;
    calls: number;
    runs: number;
  }

  /** What the tenant's usage says it spent so far (today, on any replica: the shared ledger). */
  const spent = async (): Promise<Totals> =>
    (await request(survivor.url).get(`/v1/usage?tenant_id=${TENANT}`).set(auth).expect(200)).body
      .totals as Totals;

  const record = async (name: string) =>
    (
      await request(survivor.url)
        .get(`/v1/runs/plain-${name}?tenant_id=${TENANT}`)
        .set(auth)
        .expect(200)
    ).body as RunRecord;

  async function waitSettled(name: string): Promise<RunRecord> {
    let last: RunRecord | undefined;
    await waitUntil(
      async () => {
        last = await record(name);
        return last.status !== 'running';
      },
      `${name}: the run settles on the survivor`,
      20_000,
    );
    return last!;
  }

  /**
   * What a user relies on after any stop: the run completed, the completed tool call ran once,
   * the one in flight at most twice and with one Idempotency-Key, and no model answer that was
   * checkpointed was asked for again.
   */
  async function expectCompletedOnce(
    name: string,
    run: RunRecord,
    spentBefore: Totals,
  ): Promise<void> {
    expect(run).toMatchObject({ status: 'completed', text: `done ${name}`, tool_calls: 2 });
    const fetched = endpoint.received.filter(
      (call) => call.path === '/echo' && (call.body as { case?: string }).case === name,
    );
    expect(fetched).toHaveLength(1);
    const worked: ReceivedCall[] = endpoint.received.filter(
      (call) => call.path === `/hold-first/${name}`,
    );
    expect(worked).toHaveLength(2);
    const keys = worked.map((call) => call.headers['idempotency-key']);
    expect(keys[0]).toEqual(expect.stringContaining(`plain-${name}/`));
    expect(keys[1]).toBe(keys[0]);
    expect(fetched[0].headers['idempotency-key']).not.toBe(keys[0]);
    // Two answers before the stop, one after: the answer asking for `work` was not asked again.
    const asked = model.requests.filter((req) => lastUserText(req) === `case ${name}`);
    expect(asked).toHaveLength(3);
    const tools = run.messages.filter((message) => message.role === 'tool');
    expect(tools.map((message) => message.tool_call_id)).toEqual(['call_fetch', 'call_work']);
    // The usage ledger has the owner's two calls and the survivor's one, each once, and the
    // run once: nothing lost with the owner, nothing counted again by the takeover.
    const now = await spent();
    expect({
      calls: now.calls - spentBefore.calls,
      runs: now.runs - spentBefore.runs,
      prompt_tokens: now.prompt_tokens - spentBefore.prompt_tokens,
      completion_tokens: now.completion_tokens - spentBefore.completion_tokens,
    }).toEqual({ calls: 3, runs: 1, prompt_tokens: 30, completion_tokens: 15 });
    expect(run.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 15 });
  }

  it('kill -9 of the owner: a retry with the run id on a survivor completes the run', async () => {
    const owner = await startOwner();
    const { answer, spentBefore } = await startRunInside('kill', owner);
    owner.child.kill('SIGKILL');
    expect((await owner.exited).signal).toBe('SIGKILL');
    expect(await answer).not.toBeInstanceOf(Response); // the caller saw the owner die

    // Until the dead owner's lease runs out (or while the sweep runs it), the retry is 409.
    let retried: request.Response | undefined;
    await waitUntil(
      async () => {
        retried = await request(survivor.url).post('/v1/agent/run').set(auth).send(runBody('kill'));
        if (retried.status !== 409) return true;
        expect(retried.body.type).toBe('urn:svc:problem:run-in-progress');
        return false;
      },
      'the retry is answered',
      20_000,
    );
    expect(retried!.status).toBe(200);
    expect(retried!.body).toMatchObject({ run_id: 'plain-kill', status: 'completed' });
    await expectCompletedOnce('kill', retried!.body as RunRecord, spentBefore);
  });

  it('kill -9 of the owner: the sweep of a survivor completes the run without any retry', async () => {
    const owner = await startOwner();
    const { answer, spentBefore } = await startRunInside('sweep', owner);
    owner.child.kill('SIGKILL');
    await owner.exited;
    await answer;
    await expectCompletedOnce('sweep', await waitSettled('sweep'), spentBefore);
  });

  it('a drain shorter than the run: the owner hands it over, answers 503, exits 0, and a survivor completes it', async () => {
    const owner = await startOwner({ SVC_SHUTDOWN_TIMEOUT_MS: '1000' });
    const { answer, spentBefore } = await startRunInside('drain', owner);
    owner.child.kill('SIGTERM');
    const res = await answer;
    // (fetch's errors come from another realm than this test's `Error`)
    if (!(res instanceof Response)) throw new Error(`the caller got no answer: ${String(res)}`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await res.json()).toMatchObject({ type: 'urn:svc:problem:shutting-down' });
    expect((await owner.exited).code).toBe(0);
    await expectCompletedOnce('drain', await waitSettled('drain'), spentBefore);
  });

  it('a database outage at the owner: it stops the run (503), a survivor completes it, the owner serves again', async () => {
    const target = new URL(fixture.database!.dsn);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    try {
      const owner = await startOwner({
        SVC_STATE_DSN: dsnFor(
          fixture.database!.name,
          `postgres://postgres@127.0.0.1:${proxy.port}/x`,
        ),
      });
      const { answer, spentBefore } = await startRunInside('outage', owner);
      await proxy.stop();
      // The owner can no longer renew the lease: past its TTL it stops the run it can't record.
      const res = await answer;
      if (!(res instanceof Response)) throw new Error(`the caller got no answer: ${String(res)}`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await res.json()).toMatchObject({ type: 'urn:svc:problem:state-unavailable' });
      await expectCompletedOnce('outage', await waitSettled('outage'), spentBefore);

      await proxy.start();
      await waitReady(owner.url, 20_000);
      const seen = await request(owner.url)
        .get(`/v1/runs/plain-outage?tenant_id=${TENANT}`)
        .set(auth)
        .expect(200);
      expect(seen.body).toMatchObject({ status: 'completed', text: 'done outage' });
    } finally {
      await proxy.stop();
    }
  }, 60_000);
});
