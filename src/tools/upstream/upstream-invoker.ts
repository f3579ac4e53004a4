import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { CallDeadline } from '../../platform/http/call-deadline.js';
import { idempotencyHeaders } from '../../platform/http/idempotency-key.js';
import { ProblemException } from '../../platform/http/problem.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import type { ToolResult } from '../builtin/builtin-tool.types.js';
import type { ToolLogEntry, ToolReporter } from '../tool-stream.js';
import type { CallToolRequest, Client, LoggingLevel } from '@modelcontextprotocol/client';
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, mcpClientSdk } from '../mcp-sdk.js';
import { UpstreamConnections } from './upstream-connections.js';
import type { CallSetup } from './upstream-call-setup.js';
import { classifyUpstreamFailure } from './upstream-failure.js';
import { type ClientInput, canAnswer, unanswerableInputText } from './upstream-input.js';
import { originOf } from './upstream-key.js';
import { upstreamResult } from './upstream-result.js';
import { UpstreamUrlPolicy } from './upstream-url.policy.js';
import type { UpstreamTarget } from './upstream.types.js';

/** What one call adds to its target. */
export interface UpstreamCall {
  /** Cancels the call (MCP cancellation reaches the upstream); rejects with the reason. */
  signal?: AbortSignal;
  /** Sent as `Idempotency-Key` on the call's HTTP request. */
  idempotencyKey?: string;
  /** Hears the upstream's progress notifications for this call (never after it settled). */
  reporter?: ToolReporter;
  /** The MCP client behind the call, which can answer the upstream's input requests. */
  input?: ClientInput;
}

/**
 * Calls one tool of an upstream MCP server through the shared connection, bounded by
 * SVC_TOOL_TIMEOUT_MS like HTTP tools. The upstream's result comes back whole (its `isError`
 * too); a JSON-RPC error it answered is an `isError` result in its words; no usable exchange is
 * 502 `tool-failed` ("upstream MCP server unreachable", the reason in the log only) and no
 * answer in time 504 `tool-timeout`. A caller's abort is thrown as its reason.
 *
 * An upstream on the 2026-07-28 revision may answer `input_required` (it needs an elicitation,
 * a sampling or the roots first): with an MCP client behind the call (`input`), that comes
 * back as `inputRequired` for the MCP host to pass on, and the client's answers go back with
 * the retried call; the upstream only ever sees the input capabilities that client declared.
 * A caller without a client gets a tool error saying so. An upstream of the 2025 revisions
 * asks with requests of its own during the call instead: those reach a client that can be asked
 * on its open call (`input.ask`, a 2025-era session), through a connection of the call's own.
 * The upstream's log messages reach a caller that listens (`reporter.logLevel`) the same way.
 */
@Injectable()
export class UpstreamInvoker {
  private readonly logger = new Logger('UpstreamMcp');
  private readonly timeoutMs: number;

  constructor(
    config: ConfigService<GatewayConfig, true>,
    private readonly connections: UpstreamConnections,
    private readonly urls: UpstreamUrlPolicy,
  ) {
    this.timeoutMs = config.get('tools', { infer: true }).timeoutMs;
  }

  async invoke(
    target: UpstreamTarget,
    tool: string,
    args: { [key: string]: JsonValue },
    { signal, idempotencyKey, reporter, input }: UpstreamCall = {},
  ): Promise<ToolResult> {
    const refusal = this.urls.refusal(target.url);
    if (refusal) throw new ProblemException(502, refusal, 'tool-failed');
    const deadline = new CallDeadline(this.timeoutMs, signal);
    const both = deadline.signal;
    // A notification that arrives after the call ended must not reach a caller that moved on.
    let settled = false;
    const logLevel = reporter?.onLog ? reporter.logLevel : undefined;
    try {
      const call = (client: Client) =>
        client.callTool(callParams(client, tool, args, input, logLevel), {
          signal: both,
          // An `input_required` answer comes back to us instead of the SDK's own handlers.
          allowInputRequired: true,
          // Ours decides; the SDK's own would fire a moment later with a vaguer error.
          timeout: this.timeoutMs + 1000,
          headers: idempotencyHeaders(idempotencyKey),
          ...(reporter?.onProgress && {
            onprogress: ({ progress, total, message }) => {
              if (settled) return;
              reporter.onProgress?.({
                progress,
                ...(total !== undefined && { total }),
                ...(message !== undefined && { message }),
              });
            },
          }),
        });
      const setup = await this.ownConnection(target, both, input, logLevel, (entry) => {
        if (!settled) reporter?.onLog?.(entry);
      });
      const result = setup
        ? await this.connections.dedicated(target, setup, both, call)
        : await this.connections.use(target, both, call);
      // Answered by a connected client, so the client SDK is loaded.
      if (mcpClientSdk.get().isInputRequiredResult(result)) {
        const asked = {
          ...(result.inputRequests && { inputRequests: result.inputRequests as JsonObject }),
          ...(result.requestState !== undefined && { requestState: result.requestState }),
        };
        if (canAnswer(input)) return { result: null, isError: false, inputRequired: asked };
        return { result: unanswerableInputText(asked), isError: true };
      }
      return upstreamResult(result);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const failure = classifyUpstreamFailure(error, deadline.timedOut, this.timeoutMs);
      if (failure.kind === 'answered') return { result: failure.detail, isError: true };
      this.logger.warn(
        {
          reason: failure.kind === 'unreachable' ? failure.reason : failure.detail,
          tenant_id: target.tenantId,
          toolset: target.toolset,
          upstream: target.name,
          tool,
          endpoint: originOf(target.url),
        },
        'upstream MCP tool call failed',
      );
      if (failure.kind === 'timeout') {
        throw new ProblemException(504, failure.detail, 'tool-timeout');
      }
      this.connections.discard(target);
      throw new ProblemException(502, failure.detail, 'tool-failed');
    } finally {
      settled = true;
      deadline.end();
    }
  }

  /**
   * How the call gets a connection of its own, or undefined for the shared one: when the
   * caller hears log messages (a shared connection's are everyone's), or when a 2025-era
   * upstream may ask a client that can be asked on its open call (the shared connection
   * declares no capability to ask with). A 2026-07-28 upstream asks by answering
   * `input_required`, which the shared connection carries.
   */
  private async ownConnection(
    target: UpstreamTarget,
    signal: AbortSignal,
    input: ClientInput | undefined,
    logLevel: LoggingLevel | undefined,
    onLog: (entry: ToolLogEntry) => void,
  ): Promise<CallSetup | undefined> {
    const askable = canAnswer(input) && input.ask !== undefined;
    if (!askable && !logLevel) return undefined;
    const era = askable
      ? await this.connections.use(target, signal, (client) =>
          Promise.resolve(client.getProtocolEra()),
        )
      : undefined;
    const asks = askable && era === 'legacy';
    if (!asks && !logLevel) return undefined;
    return {
      ...(asks && { capabilities: input.capabilities, ask: input.ask }),
      ...(logLevel && { logLevel, onLog }),
    };
  }
}

type JsonObject = { [key: string]: JsonValue };

/**
 * `tools/call` params for the upstream: on the 2026-07-28 revision, the calling client's input
 * capabilities in place of the connection's none, and its answers to a previous round.
 */
function callParams(
  client: Client,
  tool: string,
  args: JsonObject,
  input: ClientInput | undefined,
  logLevel: LoggingLevel | undefined,
): CallToolRequest['params'] {
  const params: CallToolRequest['params'] = { name: tool, arguments: args };
  if (client.getProtocolEra() !== 'modern') return params;
  const answering = canAnswer(input);
  if (!answering && !logLevel) return params;
  return Object.assign(params, {
    _meta: {
      ...(answering && { [CLIENT_CAPABILITIES_META_KEY]: input.capabilities }),
      // 2026-07-28 has no logging/setLevel: each request names the level it wants.
      ...(logLevel && { [LOG_LEVEL_META_KEY]: logLevel }),
    },
    ...(answering && input.responses && { inputResponses: input.responses }),
    ...(answering && input.requestState !== undefined && { requestState: input.requestState }),
  });
}
