import { Injectable } from '@nestjs/common';
import { GraphRunner } from '../graph/graph-runner.service.js';
import { ProblemException } from '../../platform/http/problem.js';
import type { RunRecord } from '../record/run-record.js';
import { RunRecordStore } from '../record/run-record.store.js';
import { LeaseKeeper } from '../../platform/state/lease-keeper.service.js';
import { runScope } from '../../platform/state/state-scopes.js';

export interface DecisionRequest {
  tenantId: string;
  runId: string;
  nodeId: string;
  decision: 'approved' | 'denied';
  /** The key id of the person deciding. */
  by: string;
  comment?: string;
}

/**
 * Human decisions on paused graph runs, from any replica: the decision is taken under the run's
 * lease (so two decisions, or a decision and a takeover, never interleave), checked against the
 * stored run, persisted with the graph state and audited. Approving runs the node and the rest
 * of the graph before answering.
 */
@Injectable()
export class ApprovalService {
  constructor(
    private readonly records: RunRecordStore,
    private readonly leases: LeaseKeeper,
    private readonly graphs: GraphRunner,
  ) {}

  async decide(request: DecisionRequest): Promise<RunRecord> {
    const { tenantId, runId, nodeId } = request;
    const lease = await this.leases.acquire(tenantId, runScope(runId));
    if (!lease) {
      throw new ProblemException(
        409,
        `run ${JSON.stringify(runId)} is busy (running, or another decision is being taken)`,
        'run-in-progress',
      );
    }
    // Once the decision is being applied, an error leaves work unfinished: hand the run over.
    let decided = false;
    let failed = false;
    try {
      const stored = await this.records.getVersioned(tenantId, runId);
      const graph = stored?.record.graph;
      if (!stored || !graph) {
        throw new ProblemException(404, `no graph run ${JSON.stringify(runId)}`, 'run-not-found');
      }
      if (!graph.steps.some((step) => step.id === nodeId)) {
        throw new ProblemException(
          404,
          `run ${JSON.stringify(runId)} has no node ${JSON.stringify(nodeId)}`,
          'node-not-found',
        );
      }
      const pending =
        stored.record.status === 'paused' && graph.pending.some((p) => p.node_id === nodeId);
      if (!pending) {
        const earlier = graph.decisions.findLast((decision) => decision.node_id === nodeId);
        throw new ProblemException(
          409,
          earlier
            ? `node ${JSON.stringify(nodeId)} was already ${earlier.decision} by ${earlier.by ?? 'someone'} at ${earlier.at}`
            : `node ${JSON.stringify(nodeId)} is not waiting for a decision (the run is ${stored.record.status})`,
          earlier ? 'already-decided' : 'not-awaiting-approval',
        );
      }
      decided = true;
      return await this.graphs.decide(
        { record: { ...stored.record, graph }, version: stored.version },
        {
          node_id: nodeId,
          decision: request.decision,
          by: request.by,
          ...(request.comment !== undefined ? { comment: request.comment } : {}),
        },
        lease.signal,
      );
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      await (decided && failed ? lease.handOver() : lease.release());
    }
  }
}
