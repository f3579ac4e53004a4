import type { JsonValue } from '../platform/state/state-store.js';

type JsonObject = { [key: string]: JsonValue };

/**
 * Largest result `_meta` a tool may hand on (its JSON): metadata for the client, not a second
 * payload. A larger one is dropped whole rather than cut, so no client sees half of it.
 */
export const MAX_RESULT_META_BYTES = 16 * 1024;

/** MCP's labels that make a `_meta` key prefix the protocol's. */
const PROTOCOL_LABELS = new Set(['modelcontextprotocol', 'mcp']);

/**
 * Whether a `_meta` key belongs to the protocol. Its prefix (up to the first `/`) is reserved
 * when `modelcontextprotocol` or `mcp` is its second label (2025-11-25 and later:
 * `io.modelcontextprotocol/`, `dev.mcp/`) or is followed by another label (2025-06-18:
 * `modelcontextprotocol.io/`, `tools.mcp.com/`); both rules hold here, since one result goes to
 * clients of every revision. `com.example.mcp/` is the tool's own under both.
 */
export function isReservedMetaKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const labels = key.slice(0, slash).toLowerCase().split('.');
  return labels.some(
    (label, i) => PROTOCOL_LABELS.has(label) && (i === 1 || i < labels.length - 1),
  );
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * What of a tool's result `_meta` reaches MCP clients: its own keys (the protocol's reserved
 * ones left out, a tool may not speak for the gateway), when it is an object of at most
 * MAX_RESULT_META_BYTES; undefined otherwise or when nothing is left.
 */
export function toolResultMeta(value: JsonValue | undefined): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const own = Object.entries(value).filter(([key]) => !isReservedMetaKey(key));
  if (own.length === 0) return undefined;
  const meta = Object.fromEntries(own);
  return Buffer.byteLength(JSON.stringify(meta)) <= MAX_RESULT_META_BYTES ? meta : undefined;
}
