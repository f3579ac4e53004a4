import { Injectable } from '@nestjs/common';
import { ProblemException } from '../../platform/http/problem.js';
import { GraphRunner, isGraphRun } from '../graph/graph-runner.service.js';
import { RunLeases } from '../lifecycle/run-lease.js';
import { stoppedProblem, stoppedReason } from '../lifecycle/run-stop.js';
import type { RunRecord } from '../record/run-record.js';
import { runView } from '../record/run-record.mapper.js';
import { RunRecordStore } from '../record/run-record.store.js';

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
 * of the graph before answering. The lease follows the one policy of every run (RunLease): a
 * run that settled (or paused again) gives it up; one stopped here hands it over.
 */
@Injectable()
export class ApprovalService {
  constructor(
    private readonly records: RunRecordStore,
    private readonly leases: RunLeases,
    private readonly graphs: GraphRunner,
  ) {}

  async decide(request: DecisionRequest): Promise<RunRecord> {
    const { tenantId, runId, nodeId } = request;
    const lease = await this.leases.claim(tenantId, runId);
    if (!lease) {
      throw new ProblemException(
        409,
        `run ${JSON.stringify(runId)} is busy (running, or another decision is being taken)`,
        'run-in-progress',
      );
    }
    try {
      const stored = await this.records.getVersioned(tenantId, runId);
      const run = stored?.run;
      if (!stored || !run || !isGraphRun(run)) {
        throw new ProblemException(404, `no graph run ${JSON.stringify(runId)}`, 'run-not-found');
      }
      const graph = run.graph;
      if (!graph.steps.some((step) => step.id === nodeId)) {
        throw new ProblemException(
          404,
          `run ${JSON.stringify(runId)} has no node ${JSON.stringify(nodeId)}`,
          'node-not-found',
        );
      }
      const pending = run.status === 'paused' && graph.pending.some((p) => p.node_id === nodeId);
      if (!pending) {
        const earlier = graph.decisions.findLast((decision) => decision.node_id === nodeId);
        throw new ProblemException(
          409,
          earlier
            ? `node ${JSON.stringify(nodeId)} was already ${earlier.decision} by ${earlier.by ?? 'someone'} at ${earlier.at}`
            : `node ${JSON.stringify(nodeId)} is not waiting for a decision (the run is ${run.status})`,
          earlier ? 'already-decided' : 'not-awaiting-approval',
        );
      }
      const decided = await this.graphs.decide(
        { run, version: stored.version },
        {
          node_id: nodeId,
          decision: request.decision,
          by: request.by,
          ...(request.comment !== undefined ? { comment: request.comment } : {}),
        },
        lease,
      );
      await lease.finish();
      return runView(decided);
    } catch (error) {
      const stopped = stoppedReason(error, lease.signal);
      if (stopped === null) {
        // Refused before anything changed (404, 409): the run is as it was.
        await lease.finish();
        throw error;
      }
      await lease.handOver();
      throw stoppedProblem(error, runId, lease.signal);
    }
  }
}
