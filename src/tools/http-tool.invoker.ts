import { Injectable } from '@nestjs/common';
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

/** The body as text, refusing (without reading on) anything over the limit. */
async function readBounded(response: Response, limit: number): Promise<string> {
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel();
    throw failed(`tool endpoint answered more than ${limit} bytes`);
  }
  if (!response.body) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw failed(`tool endpoint answered more than ${limit} bytes`);
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
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

/** fetch rejects with `TypeError: fetch failed` and the network error (ECONNREFUSED, …) as cause. */
function requestFailure(error: unknown): ProblemException {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return failed(`tool endpoint unreachable: ${cause.code}`);
  const reason = typeof cause?.message === 'string' ? cause.message : String(error);
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
      const response = await fetch(target.url, {
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
        // A redirect is reported, not followed: the registered URL is the one the tenant vouched for.
        redirect: 'manual',
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw failed(`tool endpoint answered HTTP ${response.status}`);
      }
      const result = parseResult(await readBounded(response, MAX_TOOL_RESPONSE_BYTES));
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
