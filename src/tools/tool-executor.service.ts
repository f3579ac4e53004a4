import { HttpException, Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { AuditSink } from '../platform/audit/audit-sink.js';
import { ProblemException } from '../platform/http/problem.js';
import type { JsonValue } from '../platform/state/state-store.js';
import { Metrics } from '../platform/telemetry/metrics.service.js';
import { ATTR_SVC_TOOL_IS_ERROR } from '../platform/telemetry/semconv.js';
import { toolSpan, toolTypeAttributes } from '../platform/telemetry/span-specs.js';
import { Tracing, markFailed } from '../platform/telemetry/tracing.service.js';
import { A2AAgentInvoker } from './a2a/a2a-agent.invoker.js';
import type { ToolResult } from './builtin/builtin-tool.types.js';
import { BuiltinTools } from './builtin/builtin-tools.js';
import { HttpToolInvoker } from './http-tool.invoker.js';
import { checkOutput } from './output-schema.check.js';
import { SchemaCompileBudget } from './schema-compile-budget.js';
import { ToolSchemas } from './tool-schemas.js';
import { isToolName } from './tool.limits.js';
import { type ResolvedToolset, type ToolContract, ToolCatalog } from './tool-catalog.service.js';
import type { ToolReporter } from './tool-stream.js';
import type { JsonSchemaObject } from './tool.types.js';
import type { ToolInvocation, ToolOutcome } from './tool.types.js';
import type { ClientInput } from './upstream/upstream-input.js';
import { UpstreamInvoker } from './upstream/upstream-invoker.js';

export interface ExecuteOptions {
  /** Cancels an HTTP tool call; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Who asked (the key id), for the audit trail. */
  actor?: string;
  /** The model's id for this call (agent loop), for the trace. */
  callId?: string;
  /**
   * Sent as `Idempotency-Key` by an HTTP tool: the same on every attempt of one call of a run
   * (run/turn/call, run/step[/…]), or the key a direct caller sent. Unset: no header.
   */
  idempotencyKey?: string;
  /**
   * What the calling key may do, when a person's key calls (REST, MCP). Unset inside a run: the
   * model acts for nobody's key, so a built-in that needs a permission of its own refuses.
   */
  permissions?: readonly string[];
  /** Hears what a tool reports while it runs (progress, log messages), where it can. */
  reporter?: ToolReporter;
  /** The MCP client behind the call (MCP host only), which can answer an upstream's asks. */
  clientInput?: ClientInput;
  /**
   * The toolset as the caller resolved it (a run's, when it offered its tools to the model):
   * the call uses it rather than reading the toolset again, so a run calls the tools it offered.
   */
  toolset?: ResolvedToolset;
}

/**
 * A name that would be one of an unavailable upstream's tools (it carries that upstream's
 * prefix) is the upstream's failure, not the caller's mistake: 502 `tool-failed`, which every
 * surface treats as a tool error (MCP: an `isError` result; a run: an error result).
 */
function refuseUnavailableUpstream(toolset: ResolvedToolset, name: string): void {
  const down = toolset.upstreams.find(
    (upstream) => upstream.status === 'unavailable' && name.startsWith(upstream.prefix),
  );
  if (!down) return;
  throw new ProblemException(
    502,
    `upstream MCP server "${down.name}" of toolset "${toolset.toolset}" is unavailable (${down.detail ?? 'not listed'})`,
    'tool-failed',
  );
}

/** How many argument errors the 422's detail lists (all of them are in `errors`). */
const DETAIL_ERRORS = 3;

/**
 * The one execution path of a tool call, whatever the surface (REST, the agent loop, MCP):
 * resolve the tool in the tenant's toolset, validate the arguments against its schema, run it,
 * and audit `tool.invoked`. Tool-level failures come back as `isError: true`; everything else
 * is a ProblemException: 404 `tool-not-found`, 422 `invalid-arguments`, 502 `tool-failed`,
 * 504 `tool-timeout`. Every call is an `execute_tool` span and counts in the tool-call metrics.
 */
@Injectable()
export class ToolExecutor {
  constructor(
    private readonly catalog: ToolCatalog,
    private readonly builtins: BuiltinTools,
    private readonly schemas: ToolSchemas,
    private readonly compileBudget: SchemaCompileBudget,
    private readonly http: HttpToolInvoker,
    private readonly upstreams: UpstreamInvoker,
    private readonly agents: A2AAgentInvoker,
    private readonly audit: AuditSink,
    private readonly tracing: Tracing,
    private readonly metrics: Metrics,
  ) {}

  execute(invocation: ToolInvocation, options: ExecuteOptions = {}): Promise<ToolOutcome> {
    const { tenantId, toolset, name } = invocation;
    return this.tracing.inSpan(
      toolSpan({ tenantId, toolset, name, callId: options.callId }),
      async (span) => {
        const outcome = await this.executeTraced(invocation, options, (builtin) =>
          span.setAttributes(toolTypeAttributes(builtin)),
        );
        span.setAttribute(ATTR_SVC_TOOL_IS_ERROR, outcome.isError);
        if (outcome.isError) markFailed(span, 'tool_error');
        return outcome;
      },
    );
  }

  private async executeTraced(
    invocation: ToolInvocation,
    options: ExecuteOptions,
    resolved: (builtin: boolean) => void,
  ): Promise<ToolOutcome> {
    const { tenantId, toolset, name } = invocation;
    const started = performance.now();
    let version: number | null = null;
    const record = (details: { [key: string]: JsonValue } & { is_error: boolean }) => {
      const seconds = (performance.now() - started) / 1000;
      this.metrics.recordToolCall(toolset, details.is_error, seconds);
      this.audit.record({
        kind: 'tool.invoked',
        tenantId,
        actor: options.actor,
        details: {
          toolset,
          tool: name,
          version,
          duration_ms: Math.round(seconds * 1000),
          ...details,
        },
      });
    };
    try {
      const given = options.toolset;
      const found = !isToolName(name)
        ? null
        : given?.tenantId === tenantId && given.toolset === toolset
          ? given
          : await this.catalog.find(tenantId, toolset);
      version = found?.version ?? null;
      const tool = found?.tools.find((candidate) => candidate.name === name);
      if (found && !tool) refuseUnavailableUpstream(found, name);
      if (!found || !tool) {
        throw new ProblemException(
          404,
          found
            ? `toolset "${toolset}" has no tool "${name}"`
            : `toolset "${toolset}" does not exist for tenant "${tenantId}"`,
          'tool-not-found',
        );
      }
      resolved(tool.builtin);
      const answer = await this.run(invocation.arguments, found, tool, options);
      const { result, isError, inputRequired } = answer;
      record({ is_error: isError, ...(inputRequired && { input_required: true }) });
      return {
        tool: name,
        toolset,
        version: found.version,
        result,
        isError,
        ...(inputRequired && { inputRequired }),
      };
    } catch (error) {
      if (options.signal?.aborted) {
        record({ is_error: true, status: null, error: 'aborted' }); // the caller cancelled
      } else {
        const status = error instanceof HttpException ? error.getStatus() : 500;
        const slug = error instanceof ProblemException ? (error.slug ?? null) : null;
        record({ is_error: true, status, error: slug });
      }
      throw error;
    }
  }

  /** Validates the arguments against the tool's schema (422), then runs the tool. */
  private async run(
    args: JsonValue,
    toolset: ResolvedToolset,
    tool: ToolContract,
    { signal, actor, permissions, idempotencyKey, reporter, clientInput }: ExecuteOptions,
  ): Promise<ToolResult> {
    const builtin = tool.builtin ? this.builtins.get(toolset.toolset, tool.name) : undefined;
    const schemas = await this.schemas.load();
    const validate =
      builtin?.validate ??
      schemas.cached(
        // An upstream's schema changes without the toolset's version: its listing stamp keys it.
        JSON.stringify([
          toolset.tenantId,
          toolset.toolset,
          toolset.version,
          tool.name,
          ...(tool.upstream ? [tool.upstream.stamp] : []),
        ]),
        tool.parameters,
        this.compileBudget.account(toolset.tenantId),
      );
    const errors = validate(args);
    if (errors.length > 0) {
      const summary = errors
        .slice(0, DETAIL_ERRORS)
        .map(({ path, message }) => (path ? `${path} ${message}` : message))
        .join('; ');
      throw new ProblemException(
        422,
        `arguments do not match the schema of tool "${tool.name}": ${summary}`,
        'invalid-arguments',
        errors,
      );
    }
    // Valid against a `type: object` schema, so the arguments are a JSON object.
    const object = args as { [key: string]: JsonValue };
    if (builtin) {
      return builtin.run(object, { tenantId: toolset.tenantId, actor, signal, permissions });
    }
    if (tool.upstream) {
      const { upstream, tool: upstreamName } = tool.upstream;
      const target = toolset.upstreams.find((candidate) => candidate.name === upstream)?.target;
      if (!target) throw new Error(`tool "${tool.name}" names upstream "${upstream}" it lacks`);
      return this.upstreams.invoke(target, upstreamName, object, {
        signal,
        idempotencyKey,
        reporter,
        input: clientInput,
      });
    }
    const url = tool.endpoint?.url;
    if (url === undefined) throw new Error(`tool "${tool.name}" has neither code nor endpoint`);
    if (tool.endpoint?.protocol === 'a2a') {
      const target = {
        tenantId: toolset.tenantId,
        toolset: toolset.toolset,
        name: tool.name,
        url,
        headers: tool.endpoint.headers,
      };
      return this.agents.invoke(target, object, { signal, idempotencyKey });
    }
    const answer = await this.http.invoke(
      { tenantId: toolset.tenantId, toolset: toolset.toolset, name: tool.name, url },
      object,
      { signal, idempotencyKey, reporter },
    );
    return this.checkOutput(answer, toolset, tool);
  }

  /** The answer checked against the tool's output schema, when it has one (output-schema.check.ts). */
  private checkOutput(
    answer: ToolResult,
    toolset: ResolvedToolset,
    tool: ToolContract,
  ): ToolResult {
    const schema = tool.presentation?.outputSchema;
    if (schema === undefined) return answer;
    // run() has loaded the validator.
    const validate = this.schemas
      .loaded()
      .cached(
        JSON.stringify(['output', toolset.tenantId, toolset.toolset, toolset.version, tool.name]),
        schema as JsonSchemaObject,
        this.compileBudget.account(toolset.tenantId),
      );
    return checkOutput(answer, tool.name, validate);
  }
}
