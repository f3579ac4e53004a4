import { Injectable, Logger } from '@nestjs/common';
import { AuditSink } from '../../platform/audit/audit-sink.js';
import { runError } from '../record/run-error.js';
import type { ChatMessage } from '../../providers/chat.types.js';
import type { RunError, RunRecord } from '../record/run-record.js';
import { RunEvents } from '../lifecycle/run-events.js';
import { RunRecordStore } from '../record/run-record.store.js';
import { ConversationStore, modelHistory } from '../../sessions/conversation.store.js';
import { ToolCatalog } from '../../tools/tool-catalog.service.js';
import { AgentLoop } from '../loop/agent-loop.service.js';
import { insideRun } from '../lifecycle/run-lineage.js';
import { RunTracing } from '../lifecycle/run-tracing.service.js';
import type { RunRequest } from '../run-request.js';

/**
 * One run, start to end: continue the session's conversation, run the agent loop with the
 * toolset's tools, checkpoint the conversation after every turn (with its version, so a stale
 * writer fails instead of overwriting), and record the outcome. A failure is recorded as a
 * `failed` run and rethrown, so the caller gets the problem (502/504 for a model failure, 502
 * `too-many-tool-calls`, 413 `session-too-large`). The session keeps within its size bound
 * (ConversationStore), and the record's `messages` are the run's own as the session keeps them.
 * The run is one `invoke_agent` span, whose trace id the record carries; everything it does runs
 * inside its lineage (run-lineage.ts), so nothing it causes can start another run.
 */
@Injectable()
export class RunExecutor {
  private readonly logger = new Logger(RunExecutor.name);

  constructor(
    private readonly loop: AgentLoop,
    private readonly catalog: ToolCatalog,
    private readonly conversations: ConversationStore,
    private readonly records: RunRecordStore,
    private readonly audit: AuditSink,
    private readonly events: RunEvents,
    private readonly tracing: RunTracing,
  ) {}

  execute(
    request: RunRequest,
    runId: string,
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<RunRecord> {
    const { agent, tenantId } = request;
    return this.tracing.trace({ agent, runId, sessionId, tenantId }, ({ traceId }) =>
      insideRun(() => this.executeTraced(request, runId, sessionId, traceId, signal)),
    );
  }

  private async executeTraced(
    request: RunRequest,
    runId: string,
    sessionId: string,
    traceId: string | null,
    signal?: AbortSignal,
  ): Promise<RunRecord> {
    const { tenantId } = request;
    const toolset = await this.catalog.view(tenantId, request.toolset);
    // A session the caller did not name is new: there is nothing to load.
    const session =
      request.sessionId === undefined
        ? { messages: [], trimmed: 0, version: 0 }
        : await this.conversations.load(tenantId, sessionId);
    const base: RunRecord = {
      run_id: runId,
      session_id: sessionId,
      tenant_id: tenantId,
      agent: request.agent,
      status: 'running',
      text: '',
      finish_reason: null,
      turns: 0,
      tool_calls: 0,
      messages: request.input,
      trace_id: traceId,
      ...(request.metadata ? { metadata: request.metadata } : {}),
      started_at: new Date().toISOString(),
      ended_at: null,
    };
    // Only a caller-chosen run id can be looked up while it runs.
    if (request.runId !== undefined) await this.records.put(base);
    this.events.started(base);
    this.audit.record({
      kind: 'run.started',
      tenantId,
      actor: request.actor,
      details: {
        run_id: runId,
        session_id: sessionId,
        agent: request.agent,
        toolset: request.toolset,
      },
    });

    let version = session.version;
    const history = modelHistory(session);
    // The run's own messages as the session keeps them (the record's `messages`).
    let kept: ChatMessage[] = request.input;
    try {
      this.conversations.checkInput({ from: session, own: request.input });
      const result = await this.loop.run({
        tenantId,
        toolset: request.toolset,
        tools: toolset.tools,
        model: request.model,
        messages: [...history, ...request.input],
        maxTurns: request.maxTurns,
        actor: request.actor,
        signal,
        onTurn: async (conversation, progress) => {
          const own = conversation.slice(history.length);
          const saved = await this.conversations.save(
            tenantId,
            sessionId,
            { from: session, own },
            version,
          );
          version = saved.version;
          kept = saved.own;
          this.events.progressed({ ...base, ...progress });
        },
      });
      const record: RunRecord = {
        ...base,
        status: 'completed',
        text: result.text,
        finish_reason: result.finishReason,
        turns: result.turns,
        tool_calls: result.toolCalls,
        messages: kept,
        ended_at: new Date().toISOString(),
      };
      await this.records.put(record);
      this.events.settled(record);
      this.audit.record({
        kind: 'run.completed',
        tenantId,
        actor: request.actor,
        details: {
          run_id: runId,
          finish_reason: result.finishReason,
          turns: result.turns,
          tool_calls: result.toolCalls,
        },
      });
      return record;
    } catch (error) {
      await this.recordFailure(base, runError(error), request.actor);
      throw error;
    }
  }

  /** Best effort: a backend that is down must not hide the run's own error. */
  private async recordFailure(base: RunRecord, error: RunError, actor?: string): Promise<void> {
    this.audit.record({
      kind: 'run.failed',
      tenantId: base.tenant_id,
      actor,
      details: { run_id: base.run_id, status: error.status, detail: error.detail },
    });
    const record: RunRecord = {
      ...base,
      status: 'failed',
      finish_reason: 'error',
      error,
      ended_at: new Date().toISOString(),
    };
    this.events.settled(record);
    await this.records.put(record).catch((cause: unknown) => {
      this.logger.warn(`could not record failed run ${base.run_id}: ${String(cause)}`);
    });
  }
}
