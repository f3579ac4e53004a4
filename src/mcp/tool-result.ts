import type { CallToolResult } from '@modelcontextprotocol/server';
import type { JsonValue } from '../platform/state/state-store.js';
import { toolResultMeta } from '../tools/result-meta.js';
import { isJsonObject, mcpContentBlocks, structuredResult } from '../tools/tool-answer.js';

/**
 * A tool outcome as an MCP tool result. An HTTP tool may answer MCP content itself
 * (`{"content": [text | image | audio | resource | resource_link blocks…]}`, optionally with
 * `structuredContent`, `isError` and a result `_meta`, see tools/result-meta.ts): that passes
 * through. Any other result becomes one text block (a string as is, anything else as JSON),
 * plus `structuredContent` when it is an object (tools/tool-answer.ts decides which is which,
 * for the output-schema check too).
 */
export function toCallToolResult(result: JsonValue, isError: boolean): CallToolResult {
  const structured = structuredResult(result);
  const blocks = mcpContentBlocks(result);
  if (blocks && isJsonObject(result)) {
    const meta = toolResultMeta(result._meta);
    return {
      content: blocks,
      ...(structured ? { structuredContent: structured } : {}),
      isError: isError || result.isError === true,
      ...(meta ? { _meta: meta } : {}),
    };
  }
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return {
    content: [{ type: 'text', text }],
    ...(structured ? { structuredContent: structured } : {}),
    isError,
  };
}

/** A failure the model should see as the tool's answer (endpoint down, timeout). */
export function toolErrorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
