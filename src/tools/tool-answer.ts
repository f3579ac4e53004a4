import { type ContentBlock, isSpecType } from '@modelcontextprotocol/server';
import type { JsonValue } from '../platform/state/state-store.js';

type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The content blocks of a tool answer shaped like an MCP tool result (`{"content": [text |
 * image | audio | resource | resource_link blocks…], …}`), or null when it is not one: no
 * `content`, an empty one, or any block that is not MCP content. Such an answer is plain data.
 * The MCP host and the output-schema check both decide by this, so they agree on what a
 * client's `structuredContent` is.
 */
export function mcpContentBlocks(result: JsonValue): ContentBlock[] | null {
  if (!isJsonObject(result)) return null;
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
 * What an MCP client gets as `structuredContent` for an answer: an MCP-shaped answer's own
 * (when an object), any other object answer itself, else nothing.
 */
export function structuredResult(result: JsonValue): JsonObject | undefined {
  if (!isJsonObject(result)) return undefined;
  if (mcpContentBlocks(result) === null) return result;
  return isJsonObject(result.structuredContent) ? result.structuredContent : undefined;
}

/** Whether an MCP-shaped answer says itself that the call failed (`isError: true`). */
export function answersError(result: JsonValue): boolean {
  return isJsonObject(result) && result.isError === true && mcpContentBlocks(result) !== null;
}
