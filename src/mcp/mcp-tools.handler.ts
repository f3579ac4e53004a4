import { Injectable, Logger } from '@nestjs/common';
import type {
  CallToolRequest,
  CallToolResult,
  InputRequiredResult,
  ListToolsResult,
  LoggingLevel,
  ProgressToken,
  RequestMethod,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { ToolLogEntry, ToolProgress, ToolReporter } from '../tools/tool-stream.js';
import type { ClientLogLevel } from './features/client-log-level.js';
import type { JsonValue } from '../platform/state/state-store.js';
import { ToolCatalog } from '../tools/tool-catalog.service.js';
import { ToolExecutor } from '../tools/tool-executor.service.js';
import { mcpServerSdk } from '../tools/mcp-sdk.js';
import { type ClientInput, answeringCapabilities } from '../tools/upstream/upstream-input.js';
import { JsonRpcCode } from './json-rpc-error.js';
import { RpcError, invalidArgumentsText, isToolFailure, toRpcError } from './mcp-errors.js';
import { StatelessCancellations } from './stateless-cancellations.js';
import { contextOf } from './tenant-context.js';
import { toMcpTool } from './tool-listing.js';
import { toCallToolResult, toolErrorResult } from './tool-result.js';

/**
 * `tools/list` and `tools/call` for whichever tenant and toolset the request carries (see
 * tenant-context.ts), in either protocol era. The SDK has checked the params against the
 * method's schema (-32602 otherwise). Calls go through ToolExecutor, the one execution path
 * every surface uses.
 *
 * An upstream MCP tool that needs the client's input (elicitation, sampling, roots) answers
 * `input_required`, which goes to the client as it came: a 2026-07-28 client fulfils it and
 * retries with its answers (any replica takes the retry: the state rides in the request); for
 * a 2025-era session the SDK's shim sends the embedded requests to the client and calls this
 * handler again with the answers, on the same open request.
 */
@Injectable()
export class McpToolsHandler {
  private readonly logger = new Logger('McpHost');

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly executor: ToolExecutor,
    private readonly cancellations: StatelessCancellations,
  ) {}

  async list(ctx: ServerContext): Promise<ListToolsResult> {
    const { tenantId, toolset } = contextOf(ctx.http?.authInfo);
    try {
      // Every tool of a toolset fits one page (at most 128), so there is never a nextCursor.
      const found = await this.catalog.describe(tenantId, toolset);
      return { tools: found.tools.map(toMcpTool) };
    } catch (error) {
      throw toRpcError(error, this.logger);
    }
  }

  async call(
    request: CallToolRequest,
    ctx: ServerContext,
    logLevel?: ClientLogLevel,
    clientCapabilities?: unknown,
  ): Promise<CallToolResult | InputRequiredResult> {
    const { name, arguments: args, _meta: meta } = request.params;
    const clientInput = inputOf(ctx, clientCapabilities);
    const retried = clientInput.responses !== undefined || clientInput.requestState !== undefined;
    const { tenantId, toolset, actor, permissions } = contextOf(ctx.http?.authInfo);
    const progress = new ProgressRelay(ctx, meta?.progressToken);
    // Without a session the client's cancellation arrives as a POST of its own, anywhere.
    const tracked =
      ctx.sessionId === undefined
        ? this.cancellations.track({ keyId: actor, tenantId }, ctx.mcpReq.id, ctx.mcpReq.signal)
        : undefined;
    const log = clientLog(ctx, logLevel, name);
    const started = Date.now();
    // A retry with the client's answers continues the call the client already heard start.
    if (!retried) await progress.started(`calling ${name}`);
    await log('debug', `calling ${name} in toolset ${toolset}`);
    const reporter: ToolReporter = {
      onProgress: (reported) => void progress.reported(reported),
      onLog: (entry) => void toolLog(ctx, logLevel, name, entry),
      logLevel: logLevel?.threshold(ctx),
    };
    try {
      const outcome = await this.executor.execute(
        // Parsed from JSON, so the arguments are JSON values.
        { tenantId, toolset, name, arguments: (args ?? {}) as { [key: string]: JsonValue } },
        {
          signal: tracked?.signal ?? ctx.mcpReq.signal,
          actor,
          permissions,
          reporter,
          clientInput,
        },
      );
      if (outcome.inputRequired) {
        await log('info', `${name} needs the client's input`);
        // The SDK is loaded: this runs inside one of its Servers.
        const { inputRequired } = mcpServerSdk.get();
        return inputRequired(outcome.inputRequired as Parameters<typeof inputRequired>[0]);
      }
      await progress.finished(`${name} finished`);
      await log(
        outcome.isError ? 'warning' : 'info',
        `${name} ${outcome.isError ? 'answered with an error' : 'finished'} in ${Date.now() - started} ms`,
      );
      return toCallToolResult(outcome.result, outcome.isError);
    } catch (error) {
      if (tracked?.signal.aborted && !ctx.mcpReq.signal.aborted) {
        // An HTTP exchange needs an answer; the client that cancelled ignores it.
        throw new RpcError(JsonRpcCode.Transport, 'Request cancelled: the client cancelled it');
      }
      if (isToolFailure(error)) {
        await log('error', `${name} failed: ${error.message}`);
        return toolErrorResult(error.message);
      }
      const invalid = invalidArgumentsText(error);
      if (invalid !== null) return toolErrorResult(invalid);
      throw toRpcError(error, this.logger);
    } finally {
      tracked?.release();
    }
  }
}

/**
 * What the calling client can answer, and what it answered on a retried call. A 2025-era
 * session can also be asked on the open call (the only kind with a stream to ask on).
 */
function inputOf(ctx: ServerContext, declared: unknown): ClientInput {
  const { inputResponses, requestState } = ctx.mcpReq;
  const state = requestState();
  return {
    capabilities: answeringCapabilities(declared),
    ...(ctx.sessionId !== undefined && {
      ask: (request, signal) =>
        // The method is one the client declared it answers (see answerAsks).
        ctx.mcpReq.send(request as { method: RequestMethod; params?: Record<string, unknown> }, {
          signal,
        }),
    }),
    // Parsed from JSON by the SDK, so JSON values.
    ...(inputResponses && { responses: inputResponses as ClientInput['responses'] }),
    ...(typeof state === 'string' && { requestState: state }),
  };
}

/** Sends `notifications/message` about the call, at levels the client asked to hear. */
function clientLog(ctx: ServerContext, level: ClientLogLevel | undefined, tool: string) {
  return async (severity: LoggingLevel, message: string): Promise<void> => {
    if (!level?.wants(ctx, severity)) return;
    await ctx.mcpReq.log(severity, { tool, message }, 'svc-gateway.tools').catch(() => undefined);
  };
}

/** Relays a log message the tool itself sent, when the client asked for that level. */
async function toolLog(
  ctx: ServerContext,
  level: ClientLogLevel | undefined,
  tool: string,
  entry: ToolLogEntry,
): Promise<void> {
  if (!level?.wants(ctx, entry.level)) return;
  await ctx.mcpReq.log(entry.level, entry.data, `tool:${tool}`).catch(() => undefined);
}

/**
 * Sends `notifications/progress` for the request when the client gave a progress token: 0 when
 * the call starts, then what the tool reports (a streaming HTTP tool), or 1 of 1 at the end
 * for a tool that reported nothing. Values only ever increase, as the spec requires: a report
 * that would go back is dropped. Best effort: a client that went away is noticed by the
 * call's abort signal, not here.
 */
class ProgressRelay {
  private last = -Infinity;
  private toolReported = false;

  constructor(
    private readonly ctx: ServerContext,
    private readonly token: ProgressToken | undefined,
  ) {}

  started(message: string): Promise<void> {
    return this.send({ progress: 0, message });
  }

  reported(progress: ToolProgress): Promise<void> {
    this.toolReported = true;
    return this.send(progress);
  }

  finished(message: string): Promise<void> {
    return this.toolReported ? Promise.resolve() : this.send({ progress: 1, total: 1, message });
  }

  private async send(progress: ToolProgress): Promise<void> {
    if (this.token === undefined || progress.progress <= this.last) return;
    this.last = progress.progress;
    try {
      await this.ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken: this.token, ...progress },
      });
    } catch {
      // The response itself will report a broken stream.
    }
  }
}
