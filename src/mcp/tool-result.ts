import { type CallToolResult, type ContentBlock, isSpecType } from '@modelcontextprotocol/server';
import type { JsonValue } from '../platform/state/state-store.js';
import { toolResultMeta } from '../tools/result-meta.js';

type JsonObject = { [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The blocks of an answer shaped like an MCP tool result, or null when any is not MCP content. */
function contentBlocks(result: JsonObject): ContentBlock[] | null {
  const content = result.content;
  if (!Array.isArray(content) || content.length === 0) return null;
  const blocks: ContentBlock[] = [];
  for (const item of content) {
    if (!isSpecType.ContentBlock(item)) return null;
    blocks.push(item);
  }
  return blocks;
}

/**
 * A tool outcome as an MCP tool result. An HTTP tool may answer MCP content itself
 * (`{"content": [text | image | audio | resource | resource_link blocks…]}`, optionally with
 * `structuredContent`, `isError` and a result `_meta`, see tools/result-meta.ts): that passes
 * through. Any other result becomes one text block (a string as is, anything else as JSON),
 * plus `structuredContent` when it is an object.
 */
export function toCallToolResult(result: JsonValue, isError: boolean): CallToolResult {
  if (isObject(result)) {
    const blocks = contentBlocks(result);
    if (blocks) {
      const structured = result.structuredContent;
      const meta = toolResultMeta(result._meta);
      return {
        content: blocks,
        ...(isObject(structured) ? { structuredContent: structured } : {}),
        isError: isError || result.isError === true,
        ...(meta ? { _meta: meta } : {}),
      };
    }
  }
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return {
    content: [{ type: 'text', text }],
    ...(isObject(result) ? { structuredContent: result } : {}),
    isError,
  };
}

/** A failure the model should see as the tool's answer (endpoint down, timeout). */
export function toolErrorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
