import { ProblemException } from '../platform/http/problem.js';
import type { RunRecord } from '../runs/record/run-record.js';

/** Where the run is: a client of this wire can still read it over the REST API. */
export function runHeaders(run: Pick<RunRecord, 'run_id' | 'session_id'>) {
  return { 'X-Run-Id': run.run_id, 'X-Session-Id': run.session_id };
}

export function modelNotFound(name: string): ProblemException {
  return new ProblemException(404, `no agent ${JSON.stringify(name)}`, 'agent-not-found');
}

/** An unknown agent is OpenAI's unknown model. */
export function asModelError(error: unknown, agent: string): unknown {
  return error instanceof ProblemException && error.slug === 'agent-not-found'
    ? modelNotFound(agent)
    : error;
}

/** The run when it completed; otherwise what stopped it, as the problem this wire answers. */
export function completedOrProblem(record: RunRecord): RunRecord {
  if (record.status === 'completed') return record;
  if (record.status === 'failed' && record.error) {
    const slug = record.error.type.replace(/^urn:svc:problem:/, '');
    throw new ProblemException(record.error.status, record.error.detail, slug);
  }
  const why =
    record.status === 'paused'
      ? `waits for an approval at node ${JSON.stringify(record.pending_node ?? '')}; decide with POST /v1/runs/${record.run_id}/approve or /deny`
      : `ended ${record.status}`;
  throw new ProblemException(409, `run ${record.run_id} ${why}`, `run-${record.status}`);
}
