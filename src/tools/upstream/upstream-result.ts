import type { CallToolResult } from '@modelcontextprotocol/client';
import type { JsonValue } from '../../platform/state/state-store.js';
import { toolResultMeta } from '../result-meta.js';

/**
 * An upstream's tool result as the gateway's tool result: the MCP result itself (`content`
 * blocks of every type as they came, `structuredContent`, `isError`, the tool's own `_meta`),
 * which the MCP host passes through (see mcp/tool-result.ts), REST returns as `result`, and
 * the agent loop gives the model as JSON.
 */
export function upstreamResult(result: CallToolResult): { result: JsonValue; isError: boolean } {
  const isError = result.isError === true;
  // Parsed from JSON by the SDK, so JSON values.
  const meta = toolResultMeta(result._meta as JsonValue | undefined);
  const json: { [key: string]: JsonValue } = { content: result.content as JsonValue };
  if (result.structuredContent !== undefined) {
    json.structuredContent = result.structuredContent as JsonValue;
  }
  if (isError) json.isError = true;
  if (meta) json._meta = meta;
  return { result: json, isError };
}
