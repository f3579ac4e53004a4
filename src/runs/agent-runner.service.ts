import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import { AgentSpecStore, type StoredAgentSpec } from '../agents/agent-spec.store.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { ProblemException, ValidationProblem } from '../platform/http/problem.js';
import { GraphRunner } from './graph/graph-runner.service.js';
import { MAX_RUN_DEPTH, tooDeepForRun } from './lifecycle/run-lineage.js';
import { type RunRecord, SETTLED_STATUSES } from './record/run-record.js';
import { RunRecordStore } from './record/run-record.store.js';
import { type HeldLease, LeaseKeeper } from '../platform/state/lease-keeper.service.js';
import { runScope, sessionScope } from '../platform/state/state-scopes.js';
import { RunExecutor } from './plain/run-executor.service.js';
import type { RunRequest } from './run-request.js';

/** The plain agent loop; any other name is a graph registered with PUT /v1/agents/{name}. */
const DEFAULT_AGENT = 'default';

/**
 * Runs an agent at most once per run id, on whichever replica gets the request: a repeated
 * `run_id` returns the stored result without calling the model; while another process holds the
 * run's lease, 409. Runs on one session are serialised by a session lease: the second waits
 * (`multitask: enqueue`) or gets 409 (`reject`). A graph agent's run is handed to the
 * GraphRunner under its run lease; it answers `paused` when a node waits for approval.
 * Every way of starting a run (REST, MCP and REST calls of run_agent, chat messages, `svc run`)
 * comes through here, so this is where a run started from inside another is refused (403).
 */
@Injectable()
export class AgentRunner {
  private readonly sessionWaitMs: number;

  constructor(
    private readonly records: RunRecordStore,
    private readonly leases: LeaseKeeper,
    private readonly executor: RunExecutor,
    private readonly specs: AgentSpecStore,
    private readonly graphs: GraphRunner,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.sessionWaitMs = config.get('provider', { infer: true }).timeoutMs;
  }

  async run(request: RunRequest): Promise<RunRecord> {
    if (tooDeepForRun()) {
      throw new ProblemException(
        403,
        `a run cannot start another run: this request comes from inside a run (runs nest at most ${MAX_RUN_DEPTH} deep)`,
        'nested-run',
      );
    }
    const graph = request.agent === DEFAULT_AGENT ? null : await this.graphFor(request);
    // A generated run id cannot be repeated, so a plain run without one needs no lease. A graph
    // run always holds one: it is what lets another replica take the run over.
    if (request.runId === undefined && !graph) return this.inSession(request, randomUUID());
    const runId = request.runId ?? randomUUID();
    if (request.runId !== undefined) {
      const prior = await this.settled(request.tenantId, runId);
      if (prior) return prior;
    }
    const lease = await this.leases.acquire(request.tenantId, runScope(runId));
    if (!lease) {
      const done = await this.settled(request.tenantId, runId);
      if (done) return done;
      throw new ProblemException(
        409,
        `run ${JSON.stringify(runId)} is running elsewhere`,
        'run-in-progress',
      );
    }
    if (graph) return this.runGraph(request, runId, graph, lease);
    try {
      // It may have finished between our first look and our claim.
      return (
        (await this.settled(request.tenantId, runId)) ??
        (await this.inSession(request, runId, lease))
      );
    } finally {
      await lease.release();
    }
  }

  /**
   * A graph run under its lease. When it stops on an error (the process is shutting down, the
   * backend went away) the lease is handed over rather than released, so another replica's sweep
   * continues the run from its checkpoint.
   */
  private async runGraph(
    request: RunRequest,
    runId: string,
    graph: StoredAgentSpec,
    lease: HeldLease,
  ): Promise<RunRecord> {
    let record: RunRecord;
    try {
      const stored =
        request.runId === undefined
          ? null
          : await this.records.getVersioned(request.tenantId, runId);
      if (stored && SETTLED_STATUSES.has(stored.record.status)) {
        record = this.replay(stored.record);
      } else if (stored) {
        // A record that is still `running` lost its owner: continue it from its checkpoint.
        record = await this.graphs.takeOver(stored, lease.signal);
      } else {
        record = await this.graphs.start(
          {
            tenantId: request.tenantId,
            runId,
            input: request.input,
            model: request.model,
            maxTurns: request.maxTurns,
            metadata: request.metadata,
            actor: request.actor,
          },
          graph,
          lease.signal,
        );
      }
    } catch (error) {
      await lease.handOver().catch(() => undefined);
      throw error;
    }
    await lease.release();
    return record;
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

  /** The stored outcome of a run that is not running (a failed run replays its problem). */
  private async settled(tenantId: string, runId: string): Promise<RunRecord | null> {
    const record = await this.records.get(tenantId, runId);
    return record && SETTLED_STATUSES.has(record.status) ? this.replay(record) : null;
  }

  private replay(record: RunRecord): RunRecord {
    if (record.status === 'failed' && record.error) {
      const slug = record.error.type.replace(/^urn:svc:problem:/, '');
      throw new ProblemException(record.error.status, record.error.detail, slug);
    }
    return record;
  }

  private async inSession(
    request: RunRequest,
    runId: string,
    runLease?: HeldLease,
  ): Promise<RunRecord> {
    const sessionId = request.sessionId;
    if (sessionId === undefined) {
      return this.executor.execute(request, runId, randomUUID(), runLease?.signal);
    }
    const key = sessionScope(sessionId);
    const sessionLease =
      request.multitask === 'reject'
        ? await this.leases.acquire(request.tenantId, key)
        : await this.leases.acquireWaiting(request.tenantId, key, this.sessionWaitMs);
    if (!sessionLease) {
      throw new ProblemException(
        409,
        `session ${JSON.stringify(sessionId)} is busy with another run`,
        'session-busy',
      );
    }
    try {
      const signals = [sessionLease.signal, ...(runLease ? [runLease.signal] : [])];
      return await this.executor.execute(request, runId, sessionId, AbortSignal.any(signals));
    } finally {
      await sessionLease.release();
    }
  }
}
