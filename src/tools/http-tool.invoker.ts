import { Injectable } from '@nestjs/common';
import { request } from 'undici';
import { discardBody, readBoundedBytes } from '../http/bounded-body.js';
import { outbound } from '../http/outbound.js';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../config/gateway-config.js';
import { ToolEndpointPolicy } from './tool-endpoint.policy.js';
import { ProblemException } from '../http/problem.js';
import type { JsonValue } from '../state/state-store.js';
import type { ToolResult } from './builtin/builtin-tools.js';
import { MAX_TOOL_RESPONSE_BYTES } from './tool.limits.js';

export interface HttpToolTarget {
  tenantId: string;
  toolset: string;
  name: string;
  url: string;
}

const failed = (detail: string) => new ProblemException(502, detail, 'tool-failed');

function decodeUtf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw failed('tool endpoint answered with a body that is not UTF-8');
  }
}

function parseResult(text: string): JsonValue {
  // An empty 2xx body (204 from a fire-and-forget action) is a null result.
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw failed('tool endpoint answered with a body that is not JSON');
  }
}

/** A socket error (ECONNREFUSED, …) carries its code, on the error or (from fetch) its cause. */
function requestFailure(error: unknown): ProblemException {
  type ErrorLike = { code?: unknown; message?: unknown; cause?: ErrorLike };
  const own = error as ErrorLike;
  const cause: ErrorLike = own.cause ?? own;
  if (typeof cause.code === 'string' && !cause.code.startsWith('UND_ERR')) {
    return failed(`tool endpoint unreachable: ${cause.code}`);
  }
  const reason = typeof cause.message === 'string' ? cause.message : String(error);
  return failed(`tool endpoint request failed: ${reason}`);
}

/**
 * Calls a tenant's HTTP tool: POSTs the arguments as JSON and reads a JSON answer of at most
 * 1 MiB. 502 `tool-failed` when the endpoint is unreachable, answers non-2xx or an unusable body;
 * 504 `tool-timeout` after SVC_TOOL_TIMEOUT_MS. When the caller's signal aborts, its reason is
 * thrown as is (the caller is cancelling, the tool did not fail).
 */
@Injectable()
export class HttpToolInvoker {
  private readonly timeoutMs: number;

  constructor(
    config: ConfigService<GatewayConfig, true>,
    private readonly endpoints: ToolEndpointPolicy,
  ) {
    this.timeoutMs = config.get('tools', { infer: true }).timeoutMs;
  }

  async invoke(target: HttpToolTarget, args: JsonValue, signal?: AbortSignal): Promise<ToolResult> {
    // Checked again at call time: the allow-list may have narrowed since registration.
    const refusal = this.endpoints.refusal(target.url);
    if (refusal) throw failed(refusal);
    const timeout = AbortSignal.timeout(this.timeoutMs);
    try {
      // The timeout covers the whole exchange, reading the body included.
      const response = await request(target.url, {
        dispatcher: outbound,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': 'svc-gateway',
          'x-tenant-id': target.tenantId,
          'x-toolset': target.toolset,
          'x-tool-name': target.name,
        },
        body: JSON.stringify(args),
        // A redirect is reported, never followed: the registered URL is the one the tenant vouched for.
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
      if (response.statusCode < 200 || response.statusCode >= 300) {
        discardBody(response.body);
        throw failed(`tool endpoint answered HTTP ${response.statusCode}`);
      }
      const body = await readBoundedBytes(response, MAX_TOOL_RESPONSE_BYTES);
      if (body.truncated) {
        throw failed(`tool endpoint answered more than ${MAX_TOOL_RESPONSE_BYTES} bytes`);
      }
      const result = parseResult(decodeUtf8(body.bytes));
      const isError =
        result !== null &&
        typeof result === 'object' &&
        !Array.isArray(result) &&
        result.is_error === true;
      return { result, isError };
    } catch (error) {
      if (error instanceof ProblemException) throw error;
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        throw new ProblemException(
          504,
          `tool endpoint did not answer within ${this.timeoutMs} ms`,
          'tool-timeout',
        );
      }
      throw requestFailure(error);
    }
  }
}
