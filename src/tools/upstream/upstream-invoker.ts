import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { idempotencyHeaders } from '../../platform/http/idempotency-key.js';
import { ProblemException } from '../../platform/http/problem.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import type { ToolResult } from '../builtin/builtin-tool.types.js';
import type { ToolReporter } from '../tool-stream.js';
import { UpstreamConnections } from './upstream-connections.js';
import { classifyUpstreamFailure } from './upstream-failure.js';
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
}

/**
 * Calls one tool of an upstream MCP server through the shared connection, bounded by
 * SVC_TOOL_TIMEOUT_MS like HTTP tools. The upstream's result comes back whole (its `isError`
 * too); a JSON-RPC error it answered is an `isError` result in its words; no usable exchange is
 * 502 `tool-failed` ("upstream MCP server unreachable", the reason in the log only) and no
 * answer in time 504 `tool-timeout`. A caller's abort is thrown as its reason.
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
    { signal, idempotencyKey, reporter }: UpstreamCall = {},
  ): Promise<ToolResult> {
    const refusal = this.urls.refusal(target.url);
    if (refusal) throw new ProblemException(502, refusal, 'tool-failed');
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const both = signal ? AbortSignal.any([timeout, signal]) : timeout;
    // A notification that arrives after the call ended must not reach a caller that moved on.
    let settled = false;
    try {
      const result = await this.connections.use(target, both, (client) =>
        client.callTool(
          { name: tool, arguments: args },
          {
            signal: both,
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
          },
        ),
      );
      return upstreamResult(result);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const failure = classifyUpstreamFailure(error, timeout.aborted, this.timeoutMs);
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
    }
  }
}
