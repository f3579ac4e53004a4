import { type Attributes, type Link, SpanKind } from '@opentelemetry/api';
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_SVC_GRAPH_STEP_ATTEMPT,
  ATTR_SVC_GRAPH_STEP_ID,
  ATTR_SVC_GRAPH_STEP_KIND,
  ATTR_SVC_GRAPH_TOPOLOGY,
  ATTR_SVC_RUN_ID,
  ATTR_SVC_RUN_RESUMED,
  ATTR_SVC_RUN_STATUS,
  ATTR_SVC_RUN_TOOL_CALLS,
  ATTR_SVC_RUN_TURNS,
  ATTR_SVC_TENANT_ID,
  ATTR_SVC_TOOLSET,
  DB_SYSTEM,
  GEN_AI_OPERATION_CHAT,
  GEN_AI_OPERATION_EXECUTE_TOOL,
  GEN_AI_OPERATION_INVOKE_AGENT,
} from './semconv.js';
import type { SpanSpec } from './tracing.service.js';

/*
 * The spans of the gateway, following the GenAI semantic conventions where they apply. Only
 * names, ids, counts and outcomes go into attributes: never prompts, messages, tool arguments or
 * results, or credentials.
 */

export interface RunSpanInput {
  agent: string;
  runId: string;
  sessionId: string;
  tenantId: string;
  /** Graph runs. */
  topology?: string;
  /** A taken-over or approved run continuing here: linked to its first execution. */
  resumed?: 'takeover' | 'decision';
  links?: Link[];
}

/** `invoke_agent {agent}`: one run (or one resumption of a graph run) in this process. */
export function runSpan(run: RunSpanInput): SpanSpec {
  return {
    name: `${GEN_AI_OPERATION_INVOKE_AGENT} ${run.agent}`,
    kind: SpanKind.INTERNAL,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_INVOKE_AGENT,
      [ATTR_GEN_AI_AGENT_NAME]: run.agent,
      [ATTR_GEN_AI_CONVERSATION_ID]: run.sessionId,
      [ATTR_SVC_RUN_ID]: run.runId,
      [ATTR_SVC_TENANT_ID]: run.tenantId,
      ...(run.topology !== undefined ? { [ATTR_SVC_GRAPH_TOPOLOGY]: run.topology } : {}),
      ...(run.resumed !== undefined ? { [ATTR_SVC_RUN_RESUMED]: run.resumed } : {}),
    },
    links: run.links,
    // The root of the trees /v1/runs/{id}/spans reads: kept in memory wherever it starts.
    root: true,
  };
}

/** What a run span ends with (a run record has these fields). */
export interface RunOutcome {
  status: string;
  turns: number;
  tool_calls: number;
  finish_reason: string | null;
}

/** Where a run stood when its span ended. */
export function runEndAttributes(record: Readonly<RunOutcome>): Attributes {
  return {
    [ATTR_SVC_RUN_STATUS]: record.status,
    [ATTR_SVC_RUN_TURNS]: record.turns,
    [ATTR_SVC_RUN_TOOL_CALLS]: record.tool_calls,
    ...(record.finish_reason
      ? { [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [record.finish_reason] }
      : {}),
  };
}

/** `chat {model}`: one model call (its retries included). */
export function chatSpan(provider: string, model: string): SpanSpec {
  return {
    name: `${GEN_AI_OPERATION_CHAT} ${model}`,
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_CHAT,
      [ATTR_GEN_AI_PROVIDER_NAME]: provider,
      [ATTR_GEN_AI_REQUEST_MODEL]: model,
    },
  };
}

/** What a chat span ends with (a completion has these fields). */
export interface ModelAnswer {
  finishReason: string;
  model?: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/** What the model answered: model, finish reason, token usage (never the content). */
export function chatResponseAttributes(completion: ModelAnswer): Attributes {
  const usage = completion.usage;
  return {
    [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [completion.finishReason],
    ...(completion.model !== undefined ? { [ATTR_GEN_AI_RESPONSE_MODEL]: completion.model } : {}),
    ...(usage?.prompt_tokens !== undefined
      ? { [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.prompt_tokens }
      : {}),
    ...(usage?.completion_tokens !== undefined
      ? { [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.completion_tokens }
      : {}),
  };
}

export interface ToolSpanInput {
  tenantId: string;
  toolset: string;
  name: string;
  /** The model's tool call id, when the call came from a model. */
  callId?: string;
}

/** `execute_tool {name}`: one tool call, whatever the surface. */
export function toolSpan(tool: ToolSpanInput): SpanSpec {
  return {
    name: `${GEN_AI_OPERATION_EXECUTE_TOOL} ${tool.name}`,
    kind: SpanKind.INTERNAL,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL,
      [ATTR_GEN_AI_TOOL_NAME]: tool.name,
      [ATTR_SVC_TOOLSET]: tool.toolset,
      [ATTR_SVC_TENANT_ID]: tool.tenantId,
      ...(tool.callId !== undefined ? { [ATTR_GEN_AI_TOOL_CALL_ID]: tool.callId } : {}),
    },
  };
}

/** `function` for built-in tools (code in the gateway), `extension` for HTTP tools. */
export function toolTypeAttributes(builtin: boolean): Attributes {
  return { [ATTR_GEN_AI_TOOL_TYPE]: builtin ? 'function' : 'extension' };
}

/** `graph.step {id}`: one execution of one graph node. */
export function stepSpan(step: {
  id: string;
  kind: string;
  topology: string;
  attempt: number;
}): SpanSpec {
  return {
    name: `graph.step ${step.id}`,
    kind: SpanKind.INTERNAL,
    attributes: {
      [ATTR_SVC_GRAPH_STEP_ID]: step.id,
      [ATTR_SVC_GRAPH_STEP_KIND]: step.kind,
      [ATTR_SVC_GRAPH_TOPOLOGY]: step.topology,
      [ATTR_SVC_GRAPH_STEP_ATTEMPT]: step.attempt,
    },
  };
}

/** `{operation} {table}`: one state backend operation. */
export function stateSpan(
  backend: keyof typeof DB_SYSTEM,
  operation: string,
  collection: 'state_entries' | 'run_leases',
): SpanSpec {
  return {
    name: `${operation} ${collection}`,
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM[backend],
      [ATTR_DB_OPERATION_NAME]: operation,
      [ATTR_DB_COLLECTION_NAME]: collection,
    },
  };
}
