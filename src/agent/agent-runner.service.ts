import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import { AgentSpecStore } from '../agents/agent-spec.store.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { ProblemException } from '../http/problem.js';
import { type RunRecord, TERMINAL_STATUSES } from '../runs/run-record.js';
import { RunRecordStore } from '../runs/run-record.store.js';
import { type HeldLease, LeaseKeeper } from '../state/lease-keeper.service.js';
import { sessionScope } from '../state/state-scopes.js';
import { RunExecutor } from './run-executor.service.js';
import type { RunRequest } from './run-request.js';

/** Agents this build can run; graph agents come with orchestration (issue 5). */
const KNOWN_AGENTS = new Set(['default']);

/**
 * Runs an agent at most once per run id, on whichever replica gets the request: a repeated
 * `run_id` returns the stored result without calling the model; while another process holds the
 * run's lease, 409. Runs on one session are serialised by a session lease: the second waits
 * (`multitask: enqueue`) or gets 409 (`reject`).
 */
@Injectable()
export class AgentRunner {
  private readonly sessionWaitMs: number;

  constructor(
    private readonly records: RunRecordStore,
    private readonly leases: LeaseKeeper,
    private readonly executor: RunExecutor,
    private readonly specs: AgentSpecStore,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.sessionWaitMs = config.get('provider', { infer: true }).timeoutMs;
  }

  async run(request: RunRequest): Promise<RunRecord> {
    if (!KNOWN_AGENTS.has(request.agent)) {
      // Registered graphs are stored and validated; running them is the graph runner's (issue 5).
      if (await this.specs.get(request.tenantId, request.agent)) {
        throw new ProblemException(
          501,
          `agent ${JSON.stringify(request.agent)} is a graph; graph runs are not available yet`,
          'graph-runs-unavailable',
        );
      }
      throw new ProblemException(
        404,
        `no agent ${JSON.stringify(request.agent)}`,
        'agent-not-found',
      );
    }
    // A generated run id cannot be repeated, so only a caller's run id needs the lease round trips.
    if (request.runId === undefined) return this.inSession(request, randomUUID());
    const runId = request.runId;
    const prior = await this.finished(request.tenantId, runId);
    if (prior) return prior;
    const lease = await this.leases.acquire(request.tenantId, runId);
    if (!lease) {
      const done = await this.finished(request.tenantId, runId);
      if (done) return done;
      throw new ProblemException(
        409,
        `run ${JSON.stringify(runId)} is running elsewhere`,
        'run-in-progress',
      );
    }
    try {
      // It may have finished between our first look and our claim.
      return (
        (await this.finished(request.tenantId, runId)) ??
        (await this.inSession(request, runId, lease))
      );
    } finally {
      await lease.release();
    }
  }

  /** The stored outcome of a finished run (a failed run replays its problem), or null. */
  private async finished(tenantId: string, runId: string): Promise<RunRecord | null> {
    const record = await this.records.get(tenantId, runId);
    if (!record || !TERMINAL_STATUSES.has(record.status)) return null;
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
