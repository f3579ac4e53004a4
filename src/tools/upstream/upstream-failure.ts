import type { ProtocolError, SdkError, SdkHttpError } from '@modelcontextprotocol/client';
import { EgressRefusedError } from '../../platform/http/egress-agent.js';
import { mcpClientSdk } from '../mcp-sdk.js';
import { UpstreamResponseTooLarge } from './upstream-fetch.js';

/**
 * What a caller learns when an upstream cannot be used. Like HTTP tools (TOOL_UNREACHABLE), a
 * transport failure says nothing more, so tenants cannot map the gateway's network through an
 * upstream; the operator's log keeps the reason.
 */
export const UPSTREAM_UNREACHABLE = 'upstream MCP server unreachable';

/** How a failed exchange with an upstream is answered. */
export type UpstreamFailure =
  /** The server answered with a JSON-RPC error: its own words, for the caller (or model). */
  | { kind: 'answered'; detail: string }
  /** No usable exchange (network, HTTP, era negotiation, a malformed or oversized answer). */
  | { kind: 'unreachable'; detail: string; reason: string }
  | { kind: 'timeout'; detail: string };

/**
 * The client SDK's error classes. An error can only be one of them once the SDK is loaded (it
 * is, by the first connection: ../mcp-sdk.ts); before that nothing is an instance of these.
 */
function sdkErrors() {
  const sdk = mcpClientSdk.peek();
  return {
    isSdkError: (error: unknown): error is SdkError =>
      sdk !== undefined && error instanceof sdk.SdkError,
    isProtocolError: (error: unknown): error is ProtocolError =>
      sdk !== undefined && error instanceof sdk.ProtocolError,
    isHttpError: (error: unknown): error is SdkHttpError =>
      sdk !== undefined && error instanceof sdk.SdkHttpError,
    timeoutCode: sdk?.SdkErrorCode.RequestTimeout,
  };
}

/** The classified reason of a transport failure, for the log only: never a body or a header. */
function reasonOf(error: unknown): string {
  const { isSdkError } = sdkErrors();
  for (let cause = error, hops = 0; cause && hops < 5; hops++) {
    if (cause instanceof EgressRefusedError) {
      return `refused by the egress policy: ${cause.refusal.reason}`;
    }
    if (cause instanceof UpstreamResponseTooLarge) return cause.message;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ERR_EGRESS_REFUSED') {
      if (!isSdkError(cause)) return code; // ECONNREFUSED, UND_ERR_SOCKET, CERT_…
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  if (isSdkError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : 'unknown failure';
}

export function classifyUpstreamFailure(
  error: unknown,
  timedOut: boolean,
  timeoutMs: number,
): UpstreamFailure {
  const { isSdkError, isProtocolError, isHttpError, timeoutCode } = sdkErrors();
  if (timedOut || (isSdkError(error) && error.code === timeoutCode)) {
    return { kind: 'timeout', detail: `upstream MCP server did not answer within ${timeoutMs} ms` };
  }
  if (isProtocolError(error)) {
    return {
      kind: 'answered',
      detail: `upstream MCP server answered error ${error.code}: ${error.message}`,
    };
  }
  const status = isHttpError(error) ? error.status : undefined;
  if (status === 401 || status === 403) {
    // The server the tenant registered said no to the tenant's credentials: theirs to fix.
    const detail = `upstream MCP server refused the registered credentials (HTTP ${status})`;
    return { kind: 'unreachable', detail, reason: detail };
  }
  return { kind: 'unreachable', detail: UPSTREAM_UNREACHABLE, reason: reasonOf(error) };
}
