import type { ChatMessage } from '../providers/chat.types.js';
import { ValidationProblem } from '../platform/http/problem.js';
import { newRecordId } from '../platform/ids/new-record-id.js';
import type { JsonValue } from '../platform/state/state-store.js';
import type { RunAgentDto } from './dto/run-agent.dto.js';
import type { RunOrigin, RunRecord } from './record/run-record.js';
import type { WebhookTarget } from './webhooks/run-webhook.store.js';

/** One agent run to perform, from REST (`POST /v1/agent/run`) or `svc run`. */
export interface RunRequest {
  tenantId: string;
  agent: string;
  toolset: string;
  model?: string;
  /** The new input: the request's messages, then its prompt as a user message. */
  input: ChatMessage[];
  /** Set by the caller for idempotency; generated otherwise. */
  runId?: string;
  /**
   * `runId` was made here for this request (a streamed or background run needs its id before
   * it starts; withRunId), or is the id of what the request just created (a chat message's
   * outbox entry, just accepted): no record or lease should exist yet, so it starts as a run
   * without one. One that exists all the same (a message sent again after its entry was pruned)
   * stops the run's first record, and the run is asked for as a caller's id would be.
   */
  runIdIsNew?: true;
  /** Set to continue a session; a new session otherwise. */
  sessionId?: string;
  maxTurns: number;
  multitask: 'enqueue' | 'reject';
  metadata?: { [key: string]: JsonValue };
  /** Key id of the caller, for the audit trail. */
  actor?: string;
  /** The run streams the model's answer into its event log (streamed and background runs). */
  deltas?: boolean;
  /**
   * Receives the settled run, signed, through the durable webhook outbox: a URL (the gateway's
   * `run.settled`), or a target in another wire's format (an A2A push notification).
   */
  webhook?: string | WebhookTarget;
  /** The wire whose task the run is (StoredRun.origin); absent for the gateway's own runs. */
  origin?: RunOrigin;
  /**
   * Called once the run is recorded and executing here (a new run, or one continued from its
   * checkpoint), before its first model call: a background or streamed caller answers then.
   */
  onRecorded?: (run: RunRecord) => void;
}

/** Applies the defaults; a request with neither prompt nor messages is a 400. */
/** The request with its run id: the caller's, or one made here now (marked `runIdIsNew`). */
export function withRunId<T extends RunRequest>(
  request: T,
): T & { runId: string; runIdIsNew?: true } {
  if (request.runId !== undefined) return { ...request, runId: request.runId };
  return { ...request, runId: newRecordId(), runIdIsNew: true };
}

export function toRunRequest(
  dto: RunAgentDto,
  defaults: { maxTurns: number },
  actor?: string,
): RunRequest {
  const input: ChatMessage[] = (dto.messages ?? []).map(({ role, content }) => ({ role, content }));
  if (dto.prompt !== undefined) input.push({ role: 'user', content: dto.prompt });
  if (input.length === 0) {
    throw new ValidationProblem([{ path: 'prompt', message: 'prompt or messages is required' }]);
  }
  return {
    tenantId: dto.tenant_id,
    agent: dto.agent ?? 'default',
    toolset: dto.toolset ?? 'default',
    model: dto.model,
    input,
    runId: dto.run_id,
    sessionId: dto.session_id,
    maxTurns: dto.max_turns ?? defaults.maxTurns,
    multitask: dto.multitask ?? 'enqueue',
    metadata: dto.metadata,
    actor,
    ...(dto.webhook !== undefined ? { webhook: dto.webhook } : {}),
  };
}
