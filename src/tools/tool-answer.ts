import type { ContentBlock } from '@modelcontextprotocol/server';
import type { JsonValue } from '../platform/state/state-store.js';
import { mcpServerSdk } from './mcp-sdk.js';

type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Whether `result` has the non-empty `content` array an MCP-shaped answer has. */
function hasContent(result: JsonValue): result is JsonObject & { content: JsonValue[] } {
  return isJsonObject(result) && Array.isArray(result.content) && result.content.length > 0;
}

/**
 * Loads the MCP SDK when `result` may be MCP content, whose blocks only its schemas can tell
 * (the SDK is imported on first use, tools/mcp-sdk.ts). A surface that reads an answer with the
 * functions below outside the MCP host (which has loaded it) awaits this first.
 */
export async function readyToRead(result: JsonValue): Promise<void> {
  if (hasContent(result)) await mcpServerSdk.load();
}

/**
 * The content blocks of a tool answer shaped like an MCP tool result (`{"content": [text |
 * image | audio | resource | resource_link blocks…], …}`), or null when it is not one: no
 * `content`, an empty one, or any block that is not MCP content. Such an answer is plain data.
 * The MCP host and the output-schema check both decide by this, so they agree on what a
 * client's `structuredContent` is.
 */
export function mcpContentBlocks(result: JsonValue): ContentBlock[] | null {
  if (!hasContent(result)) return null;
  const { isSpecType } = mcpServerSdk.get();
  const blocks: ContentBlock[] = [];
  for (const item of result.content) {
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
