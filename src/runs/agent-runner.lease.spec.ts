import { describe, expect, it } from '@jest/globals';
import type { AgentSpecStore } from '../agents/agent-spec.store.js';
import type { TokenBudgets } from '../usage/budgets/token-budgets.service.js';
import { AgentRunner } from './agent-runner.service.js';
import type { RunCancels } from './cancel/run-cancels.service.js';
import type { GraphRunner } from './graph/graph-runner.service.js';
import type { RunLease, RunLeases } from './lifecycle/run-lease.js';
import type { PlainRunner } from './plain/plain-runner.service.js';
import type { RunStatus, StoredRun } from './record/run-record.js';
import { RunIdTaken, type RunRecordStore } from './record/run-record.store.js';
import { withRunId } from './run-request.js';
import type { RunWebhooks } from './webhooks/run-webhooks.service.js';

/** A plain run's request, without a run id. */
const REQUEST = {
  tenantId: 'acme',
  agent: 'default',
  toolset: 'default',
  input: [{ role: 'user' as const, content: 'hello' }],
  maxTurns: 4,
  multitask: 'enqueue' as const,
};

/** An AgentRunner on these records, leases and plain runner (the rest unused by plain runs). */
function runnerOn(
  records: RunRecordStore,
  leases: RunLeases,
  plain: PlainRunner,
  webhooks = {} as RunWebhooks,
): AgentRunner {
  return new AgentRunner(
    records,
    leases,
    plain,
    {} as GraphRunner,
    {} as AgentSpecStore,
    {} as RunCancels,
    webhooks,
    { admit: () => Promise.resolve() } as unknown as TokenBudgets,
  );
}

/**
 * An AgentRunner whose plain runs end in `status`, with a lease whose release waits until the
 * test lets it go.
 */
function runnerEndingIn(status: RunStatus) {
  const events: string[] = [];
  let letGo!: () => void;
  const released = new Promise<void>((resolve) => (letGo = resolve));
  const lease = {
    signal: new AbortController().signal,
    cancelled: null,
    finish: async () => {
      events.push('release asked');
      await released;
      events.push('released');
    },
    handOver: () => Promise.resolve(),
  } as unknown as RunLease;
  const run = {
    run_id: 'r1',
    tenant_id: 'acme',
    agent: 'default',
    status,
    text: 'hi',
  } as unknown as StoredRun;
  const runner = runnerOn(
    {} as RunRecordStore,
    { claim: () => Promise.resolve(lease), claimNew: () => lease } as unknown as RunLeases,
    { start: () => Promise.resolve(run) } as unknown as PlainRunner,
  );
  return {
    run: () => runner.run(REQUEST).then((answer) => events.push(`answered ${answer.status}`)),
    events,
    letGo,
  };
}

const turns = () => new Promise((resolve) => setImmediate(resolve));

describe('AgentRunner and the run lease', () => {
  it.each(['completed', 'failed', 'cancelled'] as const)(
    'answers a %s run without waiting for its lease to be released',
    async (status) => {
      const { run, events, letGo } = runnerEndingIn(status);
      const answered = run().catch(() => events.push('answered with its problem'));
      await answered;
      expect(events[0]).toBe('release asked');
      expect(events).not.toContain('released');
      letGo();
      await turns();
      expect(events.at(-1)).toBe('released');
    },
  );

  it('answers a paused run only once its lease is free, so its approval can claim it', async () => {
    const { run, events, letGo } = runnerEndingIn('paused');
    const answered = run();
    await turns();
    expect(events).toEqual(['release asked']);
    letGo();
    await answered;
    expect(events).toEqual(['release asked', 'released', 'answered paused']);
  });
});

describe('AgentRunner and a run id', () => {
  /**
   * A runner that records which claims it made and which record reads it did. `taken`: another
   * request claimed the id first (the first record is refused, the awaited claim finds the
   * lease held, and the record read then is the other request's, `running`).
   */
  function runnerCounting({ taken = false } = {}) {
    const calls: string[] = [];
    const lease = {
      signal: new AbortController().signal,
      cancelled: null,
      claimed: Promise.resolve(),
      finish: () => Promise.resolve(),
      handOver: () => Promise.resolve(),
    } as unknown as RunLease;
    const other = { run_id: 'order-7', tenant_id: 'acme', agent: 'default', status: 'running' };
    let reads = 0;
    const read = () => {
      calls.push('read');
      return Promise.resolve(taken && ++reads > 1 ? other : null);
    };
    const records = { get: read, getVersioned: read } as unknown as RunRecordStore;
    const leases = {
      claim: () => (calls.push('claim, awaited'), Promise.resolve(taken ? null : lease)),
      claimNew: () => (calls.push('claim with the first record'), lease),
    } as unknown as RunLeases;
    const plain = {
      start: (_request: unknown, runId: string) => {
        if (taken) return Promise.reject(new RunIdTaken(runId));
        calls.push('started');
        return Promise.resolve({
          run_id: runId,
          tenant_id: 'acme',
          agent: 'default',
          status: 'completed',
        });
      },
    } as unknown as PlainRunner;
    const webhooks = {
      register: () => (calls.push('webhook'), Promise.resolve()),
    } as unknown as RunWebhooks;
    return { runner: runnerOn(records, leases, plain, webhooks), request: REQUEST, calls };
  }

  it("looks for a caller's run id, then claims it with the run's first record", async () => {
    const { runner, request, calls } = runnerCounting();
    const answer = await runner.run({ ...request, runId: 'order-7' });
    expect(answer.run_id).toBe('order-7');
    expect(calls).toEqual(['read', 'claim with the first record', 'started']);
  });

  it("asks again the usual way for a caller's run id another request claimed first", async () => {
    const { runner, request, calls } = runnerCounting({ taken: true });
    await expect(runner.run({ ...request, runId: 'order-7' })).rejects.toMatchObject({
      status: 409,
    });
    expect(calls).toEqual(['read', 'claim with the first record', 'claim, awaited', 'read']);
  });

  it("claims a caller's run id given with a webhook before anything is written", async () => {
    const { runner, request, calls } = runnerCounting();
    const answer = await runner.run({
      ...request,
      runId: 'order-7',
      webhook: 'http://hooks.example/run',
    });
    expect(answer.run_id).toBe('order-7');
    expect(calls).toEqual(['read', 'claim, awaited', 'webhook', 'read', 'started']);
  });

  it('takes an id made for the request (withRunId) as a new run: no reads, claimed with its record', async () => {
    const { runner, request, calls } = runnerCounting();
    const identified = withRunId(request);
    expect(identified.runIdIsNew).toBe(true);
    const answer = await runner.run(identified);
    expect(answer.run_id).toBe(identified.runId);
    expect(calls).toEqual(['claim with the first record', 'started']);
    // A caller's id stays the caller's.
    expect(withRunId({ ...request, runId: 'order-7' })).not.toHaveProperty('runIdIsNew');
  });
});
