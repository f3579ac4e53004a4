import { createRequire } from 'node:module';

/**
 * Attribute names of the OpenTelemetry semantic conventions we use. Stable ones come from
 * `@opentelemetry/semantic-conventions`; the GenAI and a few database ones are still
 * "development" there (its `incubating` entry point, which may change in a minor release), so,
 * as that package advises, they are copied here.
 * https://opentelemetry.io/docs/specs/semconv/gen-ai/
 *
 * The package is read through `require`: the OpenTelemetry SDK packages are CommonJS and load its
 * CommonJS build, and an `import` here would load its ESM build as well (about 350 KB of source
 * parsed twice at every start).
 */
const stable = createRequire(import.meta.url)(
  '@opentelemetry/semantic-conventions',
) as typeof import('@opentelemetry/semantic-conventions');

export const {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  ATTR_URL_PATH,
} = stable;

export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_TOKEN_TYPE = 'gen_ai.token.type';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';

export const GEN_AI_OPERATION_CHAT = 'chat';
export const GEN_AI_OPERATION_INVOKE_AGENT = 'invoke_agent';
export const GEN_AI_OPERATION_EXECUTE_TOOL = 'execute_tool';

/** The histogram of tokens per model call, and its `gen_ai.token.type` values. */
export const METRIC_GEN_AI_CLIENT_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const GEN_AI_TOKEN_TYPE_INPUT = 'input';
export const GEN_AI_TOKEN_TYPE_OUTPUT = 'output';

/** `db.system.name` values of the state backends. */
export const DB_SYSTEM = { sqlite: 'sqlite', postgres: 'postgresql' } as const;

/** The gateway's own attributes (no convention covers them). */
export const ATTR_SVC_TENANT_ID = 'svc.tenant.id';
export const ATTR_SVC_RUN_ID = 'svc.run.id';
export const ATTR_SVC_RUN_STATUS = 'svc.run.status';
export const ATTR_SVC_RUN_TURNS = 'svc.run.turns';
export const ATTR_SVC_RUN_TOOL_CALLS = 'svc.run.tool_calls';
export const ATTR_SVC_RUN_RESUMED = 'svc.run.resumed';
export const ATTR_SVC_TOOLSET = 'svc.toolset';
export const ATTR_SVC_TOOL_IS_ERROR = 'svc.tool.is_error';
export const ATTR_SVC_GRAPH_TOPOLOGY = 'svc.graph.topology';
export const ATTR_SVC_GRAPH_STEP_ID = 'svc.graph.step.id';
export const ATTR_SVC_GRAPH_STEP_KIND = 'svc.graph.step.kind';
export const ATTR_SVC_GRAPH_STEP_STATUS = 'svc.graph.step.status';
export const ATTR_SVC_GRAPH_STEP_ATTEMPT = 'svc.graph.step.attempt';
export const ATTR_SVC_REQUEST_ID = 'svc.request.id';
