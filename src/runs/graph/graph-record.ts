import type { StoredAgentSpec } from '../../agents/agent-spec.store.js';
import { executionOrder } from '../../agents/graph-order.js';
import type { ChatMessage } from '../../providers/chat.types.js';
import type { ApprovalDecision, GraphRunState } from './graph-run-state.js';
import {
  RUN_FORMAT,
  type RunFinishReason,
  type RunOrigin,
  type RunRecord,
  type RunStatus,
  runMarks,
} from '../record/run-record.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import { supervisorPrompt } from './engines/supervisor.engine.js';
import type { GraphRecord } from './graph-execution.js';

/** A run of a registered graph, as the agent runner hands it over. */
export interface GraphRunInput {
  tenantId: string;
  runId: string;
  input: ChatMessage[];
  model?: string;
  maxTurns: number;
  metadata?: { [key: string]: JsonValue };
  actor?: string;
  /** See RunRequest.deltas. */
  deltas?: boolean;
  /** See RunRequest.onRecorded. */
  onRecorded?: (run: RunRecord) => void;
  /** See RunRequest.origin. */
  origin?: RunOrigin;
  /** The run was started with a webhook (StoredRun.webhook). */
  webhook?: boolean;
}

export const now = () => new Date().toISOString();

const asText = (value: JsonValue | undefined): string =>
  typeof value === 'string' ? value : JSON.stringify(value ?? null);

/** The record a new graph run starts with: every step pending, the spec's steps kept with it. */
export function newGraphRecord(
  input: GraphRunInput,
  agent: StoredAgentSpec,
  ids: { sessionId: string; traceId: string | null; spanId?: string },
): GraphRecord {
  const { spec } = agent;
  const text = input.input
    .filter((message) => message.role === 'user')
    .map((message) => message.content)
    .join('\n');
  const graph: GraphRunState = {
    topology: spec.topology,
    agent_version: agent.version,
    input: text,
    ...(input.model !== undefined ? { model: input.model } : {}),
    max_turns: input.maxTurns,
    definition: spec.steps,
    steps: spec.steps.map((step) => ({ id: step.id, kind: step.kind, status: 'pending', runs: 0 })),
    pending: [],
    decisions: [],
    takeovers: 0,
    ...(spec.topology === 'supervisor'
      ? {
          supervisor: {
            budget: spec.budget ?? 0,
            used: 0,
            turns: 0,
            messages: [
              { role: 'system', content: supervisorPrompt(spec.budget ?? 0) },
              { role: 'user', content: text },
            ],
            queue: [],
          },
        }
      : {}),
  };
  return {
    format: RUN_FORMAT,
    run_id: input.runId,
    session_id: ids.sessionId,
    tenant_id: input.tenantId,
    agent: agent.name,
    status: 'running',
    text: '',
    finish_reason: null,
    turns: 0,
    tool_calls: 0,
    messages: input.input,
    trace_id: ids.traceId,
    ...(ids.spanId !== undefined ? { span_id: ids.spanId } : {}),
    ...(input.metadata ? { metadata: input.metadata } : {}),
    ...(input.actor !== undefined ? { actor: input.actor } : {}),
    ...runMarks(input.origin, input.webhook === true),
    started_at: now(),
    ended_at: null,
    paused: false,
    pending_node: null,
    graph,
  };
}

/**
 * Records a decision on a pending node: approved, the node may run (its status goes back to
 * `pending`); denied, it is `denied` and every node that has not run is `skipped`.
 */
export function applyDecision(
  graph: GraphRunState,
  decision: Omit<ApprovalDecision, 'at' | 'call_id'>,
): void {
  const pending = graph.pending.find((candidate) => candidate.node_id === decision.node_id);
  graph.decisions.push({
    ...decision,
    at: now(),
    ...(pending?.call ? { call_id: pending.call.id } : {}),
  });
  graph.pending = graph.pending.filter((candidate) => candidate !== pending);
  const step = graph.steps.find((candidate) => candidate.id === decision.node_id);
  if (step) {
    step.approval = decision.decision;
    step.status = decision.decision === 'approved' ? 'pending' : 'denied';
  }
  if (decision.decision === 'denied') {
    for (const other of graph.steps) {
      if (other.status === 'pending' || other.status === 'awaiting_approval') {
        other.status = 'skipped';
      }
    }
    graph.pending = [];
  }
}

/** The output of the last step, in execution order, that completed. */
function lastOutput(graph: GraphRunState): string {
  for (const id of executionOrder(graph.definition).reverse()) {
    const step = graph.steps.find((candidate) => candidate.id === id);
    if (step?.status === 'completed') return asText(step.output);
  }
  return '';
}

/**
 * Where the run stands once its engine returned: `paused` while a node waits, else `denied`,
 * `failed` (a step failed) or `completed`, with the answer (the supervisor's, or the last output).
 */
export function settleRecord(
  record: GraphRecord,
  answer?: { text: string; finishReason: Exclude<RunFinishReason, 'error'> },
): void {
  const { graph } = record;
  const paused = graph.pending.length > 0;
  record.paused = paused;
  record.pending_node = paused ? graph.pending[0].node_id : null;
  if (paused) {
    record.status = 'paused';
    return;
  }
  const statuses = new Set(graph.steps.map((step) => step.status));
  const status: RunStatus = statuses.has('denied')
    ? 'denied'
    : statuses.has('failed')
      ? 'failed'
      : 'completed';
  record.status = status;
  record.finish_reason = status === 'failed' ? 'error' : (answer?.finishReason ?? 'stop');
  record.text = answer?.text ?? lastOutput(graph);
  if (status === 'completed' || record.text) {
    record.messages = [...record.messages, { role: 'assistant', content: record.text }];
  }
  record.ended_at = now();
}
