import type { CallToolResult } from '@modelcontextprotocol/client';
import type { JsonValue } from '../../platform/state/state-store.js';

/** `_meta` keys MCP reserves for the protocol (server identity, versions): not the tool's. */
const RESERVED_META = /^io\.modelcontextprotocol\//;

function toolMeta(meta: CallToolResult['_meta']): { [key: string]: JsonValue } | undefined {
  if (!meta) return undefined;
  const kept = Object.entries(meta).filter(([key]) => !RESERVED_META.test(key));
  return kept.length > 0 ? (Object.fromEntries(kept) as { [key: string]: JsonValue }) : undefined;
}

/**
 * An upstream's tool result as the gateway's tool result: the MCP result itself (`content`
 * blocks of every type as they came, `structuredContent`, `isError`, the tool's own `_meta`),
 * which the MCP host passes through (see mcp/tool-result.ts), REST returns as `result`, and
 * the agent loop gives the model as JSON.
 */
export function upstreamResult(result: CallToolResult): { result: JsonValue; isError: boolean } {
  const isError = result.isError === true;
  const meta = toolMeta(result._meta);
  // Parsed from JSON by the SDK, so JSON values.
  const json: { [key: string]: JsonValue } = { content: result.content as JsonValue };
  if (result.structuredContent !== undefined) {
    json.structuredContent = result.structuredContent as JsonValue;
  }
  if (isError) json.isError = true;
  if (meta) json._meta = meta;
  return { result: json, isError };
}
