import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Dispatcher } from 'undici';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { discardBody, readBoundedBytes } from '../platform/http/bounded-body.js';
import { CallDeadline } from '../platform/http/call-deadline.js';
import { EgressRefusedError } from '../platform/http/egress-agent.js';
import { idempotencyHeaders } from '../platform/http/idempotency-key.js';
import { GATEWAY_USER_AGENT } from '../platform/http/outbound.js';
import { ProblemException } from '../platform/http/problem.js';
import { SseDataReader } from '../platform/http/sse-data-reader.js';
import { TenantEgress } from '../platform/http/tenant-egress.js';
import { undici } from '../platform/http/undici.js';
import { DeploymentMark } from '../platform/state/deployment-mark.js';
import type { JsonValue } from '../platform/state/state-store.js';
import type { ToolResult } from './builtin/builtin-tool.types.js';
import { ToolEndpointPolicy } from './tool-endpoint.policy.js';
import { MAX_TOOL_RESPONSE_BYTES } from './tool.limits.js';
import { answersError, isJsonObject, readyToRead } from './tool-answer.js';
import { type ToolReporter, parseToolStreamEvent } from './tool-stream.js';

export interface HttpToolTarget {
  tenantId: string;
  toolset: string;
  name: string;
  url: string;
}

/** What one call adds to its target. */
export interface HttpToolCall {
  /** Cancels the call; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Sent as `Idempotency-Key` (see idempotencyHeaderValue); no header when unset. */
  idempotencyKey?: string;
  /** Hears the progress and log messages of an endpoint that streams its answer. */
  reporter?: ToolReporter;
}

/**
 * The one thing a caller learns when a tool endpoint fails. Saying more (connection refused vs
 * reset vs closed vs an HTTP status vs a policy refusal) would let tenants map the gateway's
 * network through their tools; the operator's log keeps the reason.
 */
export const TOOL_UNREACHABLE = 'tool endpoint unreachable';

/** Why an exchange that reached the endpoint is unusable (for the log only). */
class UnusableAnswer extends Error {}

function decodeUtf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UnusableAnswer('answered a body that is not UTF-8');
  }
}

function parseResult(text: string): JsonValue {
  // An empty 2xx body (204 from a fire-and-forget action) is a null result.
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw new UnusableAnswer('answered a body that is not JSON');
  }
}

/** The classified reason of a failure, for the operator's log: never a body, never a secret. */
function failureReason(error: unknown): string {
  if (error instanceof EgressRefusedError)
    return `refused by the egress policy: ${error.refusal.reason}`;
  if (error instanceof UnusableAnswer) return error.message;
  type ErrorLike = { code?: unknown; message?: unknown; cause?: ErrorLike };
  const own = (error ?? {}) as ErrorLike;
  const cause: ErrorLike = own.cause ?? own;
  if (typeof cause.code === 'string') return cause.code; // ECONNREFUSED, UND_ERR_SOCKET, CERT_…
  return typeof cause.message === 'string' ? cause.message : 'unknown failure';
}

/** Only the origin of a tenant's URL is logged: paths and queries may carry its secrets. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * Calls a tenant's HTTP tool: POSTs the arguments as JSON and reads a JSON answer of at most
 * 1 MiB, over TenantEgress (every connection's address is checked by the egress policy). Any
 * failure is one 502 `tool-failed` "tool endpoint unreachable" (see TOOL_UNREACHABLE), except
 * 504 `tool-timeout` after SVC_TOOL_TIMEOUT_MS, and a 502 naming the reason when the URL itself
 * is refused (that needs no network, so it tells nothing about it). When the caller's signal
 * aborts, its reason is thrown as is (the caller is cancelling, the tool did not fail).
 * A call with an idempotency key sends it as `Idempotency-Key`, so an endpoint can recognise
 * the repeat of a call that a takeover ran again.
 */
@Injectable()
export class HttpToolInvoker {
  private readonly logger = new Logger(HttpToolInvoker.name);
  private readonly timeoutMs: number;

  constructor(
    config: ConfigService<GatewayConfig, true>,
    private readonly endpoints: ToolEndpointPolicy,
    private readonly egress: TenantEgress,
    private readonly mark: DeploymentMark,
  ) {
    this.timeoutMs = config.get('tools', { infer: true }).timeoutMs;
  }

  async invoke(
    target: HttpToolTarget,
    args: JsonValue,
    { signal, idempotencyKey, reporter }: HttpToolCall = {},
  ): Promise<ToolResult> {
    // Checked again at call time: the allow-list may have narrowed since registration.
    const refusal = this.endpoints.refusal(target.url);
    if (refusal) throw new ProblemException(502, refusal, 'tool-failed');
    const lineage = await this.mark.headers();
    const call = new CallDeadline(this.timeoutMs, signal);
    try {
      // The timeout covers the whole exchange, reading the body included.
      return await this.exchange(
        target,
        args,
        { ...lineage, ...idempotencyHeaders(idempotencyKey) },
        call.signal,
        reporter,
      );
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const timedOut = call.timedOut;
      this.logger.warn(
        {
          err: error instanceof UnusableAnswer || timedOut ? undefined : error,
          reason: timedOut ? `no answer within ${this.timeoutMs} ms` : failureReason(error),
          tenant_id: target.tenantId,
          toolset: target.toolset,
          tool: target.name,
          endpoint: originOf(target.url),
        },
        'tool endpoint call failed',
      );
      if (timedOut) {
        throw new ProblemException(
          504,
          `tool endpoint did not answer within ${this.timeoutMs} ms`,
          'tool-timeout',
        );
      }
      throw new ProblemException(502, TOOL_UNREACHABLE, 'tool-failed');
    } finally {
      call.end();
    }
  }

  private async exchange(
    target: HttpToolTarget,
    args: JsonValue,
    extraHeaders: Record<string, string>,
    signal: AbortSignal,
    reporter: ToolReporter | undefined,
  ): Promise<ToolResult> {
    const { request } = await undici.load();
    const response = await request(target.url, {
      dispatcher: await this.egress.dispatcher(),
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'user-agent': GATEWAY_USER_AGENT,
        'x-tenant-id': target.tenantId,
        'x-toolset': target.toolset,
        'x-tool-name': target.name,
        ...extraHeaders,
      },
      body: JSON.stringify(args),
      // A redirect is a failure, never followed: the registered URL is the one the tenant vouched for.
      signal,
    });
    if (response.statusCode < 200 || response.statusCode >= 300) {
      discardBody(response.body);
      throw new UnusableAnswer(`answered HTTP ${response.statusCode}`);
    }
    const streamed = String(response.headers['content-type'] ?? '').startsWith('text/event-stream');
    const result = streamed
      ? await this.readStream(response, reporter)
      : parseResult(decodeUtf8(await this.readBody(response)));
    // The gateway's own convention (`is_error`), or an MCP-shaped answer's `isError` (which the
    // output-schema check also reads: both need the MCP SDK for content blocks).
    await readyToRead(result);
    const isError = (isJsonObject(result) && result.is_error === true) || answersError(result);
    return { result, isError };
  }

  /**
   * A streamed answer (see tool-stream.ts): progress and log events go to the reporter as they
   * come, the `result` event is the answer. Bounded like a JSON body, in total.
   */
  private async readStream(
    response: Dispatcher.ResponseData,
    reporter: ToolReporter | undefined,
  ): Promise<JsonValue> {
    const reader = new SseDataReader();
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let received = 0;
    let result: { value: JsonValue } | undefined;
    const handle = (payloads: string[]) => {
      for (const payload of payloads) {
        const event = parseToolStreamEvent(payload);
        if (event?.kind === 'result') result = { value: event.result };
        else if (event?.kind === 'progress') reporter?.onProgress?.(event.progress);
        else if (event?.kind === 'log') reporter?.onLog?.(event.entry);
      }
    };
    try {
      for await (const chunk of response.body) {
        const bytes = chunk as Buffer;
        received += bytes.length;
        if (received > MAX_TOOL_RESPONSE_BYTES) {
          throw new UnusableAnswer(`answered more than ${MAX_TOOL_RESPONSE_BYTES} bytes`);
        }
        handle(reader.push(decoder.decode(bytes, { stream: true })));
      }
      handle(reader.push(decoder.decode()));
    } catch (error) {
      if (error instanceof TypeError) throw new UnusableAnswer('answered a body that is not UTF-8');
      throw error;
    }
    handle(reader.end());
    if (!result) throw new UnusableAnswer('ended its event stream without a result');
    return result.value;
  }

  private async readBody(response: Dispatcher.ResponseData): Promise<Buffer> {
    const body = await readBoundedBytes(response, MAX_TOOL_RESPONSE_BYTES);
    if (body.truncated)
      throw new UnusableAnswer(`answered more than ${MAX_TOOL_RESPONSE_BYTES} bytes`);
    return body.bytes;
  }
}
