import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { mcpServerSdk } from '../tools/mcp-sdk.js';
import { type JsonRpcFailure, JsonRpcCode, failure } from './json-rpc-error.js';

/** The SDK's own limit on a JSON-RPC batch. */
const MAX_BATCH = 100;

/** A POST body that is well-formed JSON-RPC, ready for the SDK transport. */
export interface IncomingMessages {
  /** Passed to the transport as its parsed body (one message or a batch). */
  body: unknown;
  /** The body holds an `initialize` request (it opens a session in stateful mode). */
  initialize: boolean;
  /** A request asked for progress notifications, which only an SSE response can carry. */
  wantsProgress: boolean;
  /** The body is a JSON-RPC batch (an array), which revisions from 2025-06-18 on removed. */
  batch: boolean;
  /** The requests the body's `notifications/cancelled` name. */
  cancelled: RequestId[];
}

function cancelledId(message: JSONRPCMessage): RequestId | undefined {
  if (
    !mcpServerSdk.get().isJSONRPCNotification(message) ||
    message.method !== 'notifications/cancelled'
  )
    return;
  const id = message.params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function hasProgressToken(message: JSONRPCMessage): boolean {
  if (!mcpServerSdk.get().isJSONRPCRequest(message)) return false;
  const meta = message.params?._meta;
  return meta?.progressToken !== undefined;
}

/**
 * Classifies a POST body as JSON-RPC 2.0 says: not JSON → -32700, not a JSON-RPC message (or an
 * empty batch, or a batch holding `initialize`) → -32600, an `initialize` whose params are wrong
 * → -32602. (The SDK would answer -32700 for the second, open a session for a batch of one
 * `initialize`, and answer an internal error for the third.) The MCP host has loaded the SDK.
 */
export function parseMessages(body: unknown): IncomingMessages | JsonRpcFailure {
  const { isJSONRPCRequest, isSpecType } = mcpServerSdk.get();
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0 || items.length > MAX_BATCH) {
    return failure(
      400,
      JsonRpcCode.InvalidRequest,
      'Invalid Request: a batch must hold 1 to 100 messages',
    );
  }
  const messages: JSONRPCMessage[] = [];
  for (const item of items) {
    if (!isSpecType.JSONRPCMessage(item)) {
      return failure(
        400,
        JsonRpcCode.InvalidRequest,
        'Invalid Request: not a JSON-RPC 2.0 message',
      );
    }
    messages.push(item);
  }
  let initialize = false;
  for (const message of messages) {
    if (!isJSONRPCRequest(message) || message.method !== 'initialize') continue;
    if (Array.isArray(body)) {
      // 2025-03-26, the one revision with both batches and sessions: "The initialize request
      // MUST NOT be part of a JSON-RPC batch." Never a session from a batch.
      return failure(
        400,
        JsonRpcCode.InvalidRequest,
        'Invalid Request: initialize must be sent alone, not in a JSON-RPC batch',
      );
    }
    if (!isSpecType.InitializeRequest(message)) {
      return {
        ...failure(
          400,
          JsonRpcCode.InvalidParams,
          'Invalid params: initialize needs protocolVersion, capabilities and clientInfo',
        ),
        id: message.id,
      };
    }
    initialize = true;
  }
  return {
    body,
    initialize,
    wantsProgress: messages.some(hasProgressToken),
    batch: Array.isArray(body),
    cancelled: messages.map(cancelledId).filter((id) => id !== undefined),
  };
}

/** Parses the body text; malformed JSON is -32700 (status 400, a JSON-RPC body, never HTML). */
export function parseJsonText(text: string): { value: unknown } | JsonRpcFailure {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return failure(400, JsonRpcCode.ParseError, 'Parse error: the body is not valid JSON');
  }
}
