import { Injectable, Logger } from '@nestjs/common';
import { AgentSpecStore, type StoredAgentSpec } from '../agents/agent-spec.store.js';
import { ProblemException, ValidationProblem } from '../platform/http/problem.js';
import { TokenBudgets } from '../usage/budgets/token-budgets.service.js';
import { RunCancels } from './cancel/run-cancels.service.js';
import { RunWebhooks } from './webhooks/run-webhooks.service.js';
import { GraphRunner, isGraphRun } from './graph/graph-runner.service.js';
import { type RunLease, RunLeases } from './lifecycle/run-lease.js';
import { MAX_RUN_DEPTH, tooDeepForRun } from './lifecycle/run-lineage.js';
import { stoppedProblem, stoppedReason } from './lifecycle/run-stop.js';
import { PlainRunner } from './plain/plain-runner.service.js';
import {
  type RunRecord,
  SETTLED_STATUSES,
  type StoredRun,
  TERMINAL_STATUSES,
} from './record/run-record.js';
import { runView } from './record/run-record.mapper.js';
import { RunIdTaken, RunRecordStore, type VersionedRun } from './record/run-record.store.js';
import type { RunRequest } from './run-request.js';
import { checkRunInput } from './run-input.limits.js';
import { newRecordId } from '../platform/ids/new-record-id.js';
import { LeaseLostError } from '../platform/state/state-store.js';

/** The plain agent loop; any other name is a graph registered with PUT /v1/agents/{name}. */
const DEFAULT_AGENT = 'default';

/**
 * A run id the caller chose that is already another agent's run: a conflict, not that run (a
 * resent request answers the run it started; a reused id must not answer someone else's).
 */
function refuseOtherAgents(run: RunRecord, request: RunRequest): void {
  if (run.agent === request.agent) return;
  throw new ProblemException(
    409,
    `run id ${JSON.stringify(run.run_id)} is already a run of agent ${JSON.stringify(run.agent)}, not of ${JSON.stringify(request.agent)}; choose another id`,
    'run-id-conflict',
  );
}

/** startUnrecorded's answer when another request claimed or recorded the run's id first. */
const TAKEN = Symbol('taken');

/**
 * Whether a run that was not recorded stopped because its id was another request's first: its
 * first record found the id taken, or its lease's claim lost (then the record, written only
 * under the claim, was not written either).
 */
function takenFirst(lease: RunLease, error: unknown): Promise<boolean> {
  if (error instanceof RunIdTaken) return Promise.resolve(true);
  return lease.claimed.then(
    () => false,
    (reason: unknown) => reason instanceof LeaseLostError,
  );
}

/** The problem a failed run's caller gets (and gets again when the run id is repeated). */
function failure(run: RunRecord): ProblemException | null {
  if (run.status !== 'failed' || !run.error) return null;
  const slug = run.error.type.replace(/^urn:svc:problem:/, '');
  return new ProblemException(run.error.status, run.error.detail, slug);
}

/**
 * Every run, of every kind and from every surface (REST, MCP and REST calls of run_agent, chat
 * messages, `svc run`), starts here and goes on here: a run is claimed under its lease
 * (`run:<id>`), recorded before its first model or tool call, executed by PlainRunner or
 * GraphRunner, and settled. A repeated `run_id` returns the settled run without executing
 * anything; one whose owner is gone is continued from its checkpoint (the sweep of RunRecovery
 * does the same without a retry); while another process executes it: 409. The lease's one error
 * policy: a settled run gives its lease up, an unfinished one hands it over, and neither ever
 * fails the run (RunLease). A run started from inside another run is refused (403), and a new
 * run of a tenant whose token budget is spent (429 `budget-exhausted`), on every surface.
 */
@Injectable()
export class AgentRunner {
  private readonly logger = new Logger(AgentRunner.name);

  constructor(
    private readonly records: RunRecordStore,
    private readonly leases: RunLeases,
    private readonly plain: PlainRunner,
    private readonly graphs: GraphRunner,
    private readonly specs: AgentSpecStore,
    private readonly cancels: RunCancels,
    private readonly webhooks: RunWebhooks,
    private readonly budgets: TokenBudgets,
  ) {}

  async run(request: RunRequest): Promise<RunRecord> {
    if (tooDeepForRun()) {
      throw new ProblemException(
        403,
        `a run cannot start another run: this request comes from inside a run (runs nest at most ${MAX_RUN_DEPTH} deep)`,
        'nested-run',
      );
    }
    checkRunInput(request.input);
    const graph = request.agent === DEFAULT_AGENT ? null : await this.graphFor(request);
    const runId = request.runId ?? newRecordId();
    // An id made here, now or for this request (RunRequest.runIdIsNew), is nobody else's: no
    // record to look for (one found all the same stops the first record: RunIdTaken).
    const isNew = request.runId === undefined || request.runIdIsNew === true;
    const prior = isNew ? null : await this.records.get(request.tenantId, runId);
    if (prior) refuseOtherAgents(prior, request);
    if (prior && SETTLED_STATUSES.has(prior.status)) return this.answer(prior);
    // A new run starts only within its tenant's budget; one already recorded goes on.
    if (!prior) await this.budgets.admit(request.tenantId);
    // A caller's id with a webhook is claimed first: the webhook is registered before the run
    // starts, and must not go to a run another request claimed.
    if (!prior && (isNew || request.webhook === undefined)) {
      const started = await this.startUnrecorded(request, runId, graph);
      if (started !== TAKEN) return this.answer(started);
    }
    return this.answer(await this.claimAndRun(request, runId, graph));
  }

  /**
   * A run with no record: its lease's claim goes with its first record, which is written only
   * under the claim (RunRecordStore.create), so a new run waits for no claim of its own. TAKEN
   * when another request claimed or recorded the id first; nothing of the run was done here.
   */
  private async startUnrecorded(
    request: RunRequest,
    runId: string,
    graph: StoredAgentSpec | null,
  ): Promise<StoredRun | null | typeof TAKEN> {
    const lease = this.leases.claimNew(request.tenantId, runId);
    if (!lease) return TAKEN;
    try {
      return await this.underLease(lease, runId, async () => {
        await this.registerWebhook(request, runId);
        return this.begin(request, runId, graph, lease);
      });
    } catch (error) {
      if (await takenFirst(lease, error)) return TAKEN;
      throw error;
    }
  }

  /**
   * A run that may be recorded (a caller's id): its lease is claimed first, then its record
   * read, so a settled run is answered, one whose owner died continued, and one another process
   * executes refused (409).
   */
  private async claimAndRun(
    request: RunRequest,
    runId: string,
    graph: StoredAgentSpec | null,
  ): Promise<StoredRun | null> {
    const lease = await this.leases.claim(request.tenantId, runId);
    if (!lease) {
      const done = await this.records.get(request.tenantId, runId);
      if (done) refuseOtherAgents(done, request);
      if (done && SETTLED_STATUSES.has(done.status)) return done;
      throw new ProblemException(
        409,
        `run ${JSON.stringify(runId)} is running elsewhere`,
        'run-in-progress',
      );
    }
    return this.underLease(lease, runId, async () => {
      await this.registerWebhook(request, runId);
      // A caller's run id may have a record: settled meanwhile, or left by an owner that died.
      const stored = await this.records.getVersioned(request.tenantId, runId);
      if (stored) refuseOtherAgents(stored.run, request);
      if (stored && SETTLED_STATUSES.has(stored.run.status)) return stored.run;
      if (stored) {
        // A webhook given when the run is asked for again: its next write carries the mark.
        if (request.webhook !== undefined) stored.run.webhook = true;
        request.onRecorded?.(runView(stored.run));
        return this.continueRun(stored, lease);
      }
      return this.begin(request, runId, graph, lease);
    });
  }

  /** The run's webhook, when it was asked for with one: written before the run starts. */
  private async registerWebhook(request: RunRequest, runId: string): Promise<void> {
    if (request.webhook === undefined) return;
    await this.webhooks.register(request.tenantId, runId, request.webhook);
  }

  /** Records a new run and executes it, a graph's or the plain loop's. */
  private begin(
    request: RunRequest,
    runId: string,
    graph: StoredAgentSpec | null,
    lease: RunLease,
  ): Promise<StoredRun> {
    if (!graph) return this.plain.start(request, runId, lease);
    return this.graphs.start(
      {
        tenantId: request.tenantId,
        runId,
        input: request.input,
        model: request.model,
        maxTurns: request.maxTurns,
        metadata: request.metadata,
        actor: request.actor,
        deltas: request.deltas,
        onRecorded: request.onRecorded,
        origin: request.origin,
        webhook: request.webhook !== undefined,
      },
      graph,
      lease,
    );
  }

  /**
   * Continues a run whose owner stopped, under a lease the caller claimed (RunRecovery's sweep);
   * the lease is given up or handed over here. Never throws: what cannot be done now is left
   * for the next sweep.
   */
  async recover(tenantId: string, runId: string, lease: RunLease): Promise<void> {
    try {
      await this.underLease(lease, runId, async () => {
        const stored = await this.records.getVersioned(tenantId, runId);
        // No record: the owner died before recording it, so nothing ran. Settled: a stale lease.
        if (!stored || SETTLED_STATUSES.has(stored.run.status)) return stored?.run ?? null;
        this.logger.log(`taking over run ${runId} of tenant ${tenantId}`);
        return this.continueRun(stored, lease);
      });
    } catch (err) {
      this.logger.warn({ err, run_id: runId }, 'taking over a run failed; the next sweep retries');
    }
  }

  /**
   * Runs `work` under `lease`: a run that settled gives the lease up; anything else (the run
   * stopped here, or could not start) hands it over, so whatever is recorded is continued by a
   * sweep, and the caller learns where the run goes on.
   */
  private async underLease(
    lease: RunLease,
    runId: string,
    work: () => Promise<StoredRun | null>,
  ): Promise<StoredRun | null> {
    let result: StoredRun | null;
    try {
      result = await work();
    } catch (error) {
      const cancelled = lease.cancelled;
      if (cancelled) return this.settleCancelled(lease, cancelled.by);
      await lease.handOver();
      throw stoppedReason(error, lease.signal) === null
        ? error
        : stoppedProblem(error, runId, lease.signal);
    }
    // A run that ended is answered without waiting for its lease to go (one write less on the
    // caller's path): whoever asks for the run meanwhile finds the lease held and answers the
    // settled record (run()), and shutdown waits for the release (RunLeases). A paused run keeps
    // the order: its lease is free before its caller can approve or deny.
    if (result && TERMINAL_STATUSES.has(result.status)) void lease.finish();
    else await lease.finish();
    return result;
  }

  /** The run was cancelled while it executed here: it settles `cancelled` under its lease. */
  private async settleCancelled(lease: RunLease, by: string | null): Promise<StoredRun | null> {
    let settled: StoredRun | null;
    try {
      settled = await this.cancels.settle(lease.tenantId, lease.runId, by);
    } catch (error) {
      // Not written: the cancellation request stays, and whoever continues the run settles it.
      await lease.handOver();
      throw error;
    }
    await lease.finish();
    return settled;
  }

  /**
   * A stored, unsettled run goes on from its checkpoint, whatever kind it is; one whose
   * cancellation was asked for settles `cancelled` instead.
   */
  private async continueRun(stored: VersionedRun, lease: RunLease): Promise<StoredRun> {
    const { run } = stored;
    const cancel = await this.cancels.requested(run.tenant_id, run.run_id);
    if (cancel) return (await this.cancels.settle(run.tenant_id, run.run_id, cancel.by)) ?? run;
    if (isGraphRun(run)) return this.graphs.resume({ ...stored, run }, lease);
    if (run.loop && run.status === 'queued') {
      return this.plain.restart({ ...stored, run: { ...run, loop: run.loop } }, lease);
    }
    if (run.loop) return this.plain.resume({ ...stored, run: { ...run, loop: run.loop } }, lease);
    return this.interrupted(stored);
  }

  /**
   * A plain run recorded before runs were checkpointed (format 1) has no checkpoint to go on
   * from: what its tool calls did is unknown, so it is recorded `failed` rather than run again.
   */
  private async interrupted(stored: VersionedRun): Promise<StoredRun> {
    const failed: StoredRun = {
      ...stored.run,
      status: 'failed',
      finish_reason: 'error',
      error: {
        status: 500,
        type: 'urn:svc:problem:run-interrupted',
        detail: 'the run was interrupted before this version of the gateway could checkpoint it',
      },
      ended_at: new Date().toISOString(),
    };
    await this.records.put(failed, stored.version);
    return failed;
  }

  /** The API answer for a settled run; a failed run answers its problem. */
  private answer(run: StoredRun | null): RunRecord {
    if (!run) throw new Error('a run without a record cannot be answered');
    const problem = failure(run);
    if (problem) throw problem;
    return runView(run);
  }

  /** The registered graph `request.agent` names (404 when there is none). */
  private async graphFor(request: RunRequest): Promise<StoredAgentSpec> {
    const graph = await this.specs.get(request.tenantId, request.agent);
    if (!graph) {
      throw new ProblemException(
        404,
        `no agent ${JSON.stringify(request.agent)}`,
        'agent-not-found',
      );
    }
    if (request.sessionId !== undefined) {
      throw new ValidationProblem(
        [{ path: 'session_id', message: 'graph agents do not continue sessions' }],
        `agent ${JSON.stringify(request.agent)} is a graph; graph runs do not continue sessions`,
      );
    }
    return graph;
  }
}
