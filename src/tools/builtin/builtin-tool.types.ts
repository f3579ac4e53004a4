import type { JsonValue } from '../../platform/state/state-store.js';
import type { ToolHints, ToolSpec } from '../tool.types.js';
import type { InputRequired } from '../upstream/upstream-input.js';

export interface ToolResult {
  result: JsonValue;
  isError: boolean;
  /** An upstream MCP tool needs the calling MCP client's input first (see upstream-input.ts). */
  inputRequired?: InputRequired;
}

/** Whom a built-in tool runs for. */
export interface BuiltinToolContext {
  tenantId: string;
  /** The key id of the caller, for the audit trail. */
  actor?: string;
  signal?: AbortSignal;
  /** The calling key's permissions (REST, MCP); unset inside a run. */
  permissions?: readonly string[];
}

/**
 * A tool implemented in the gateway; `run` gets arguments already valid against its schema.
 * A failure the caller (or model) should read is a result with `isError: true`.
 */
export interface BuiltinTool {
  spec: ToolSpec;
  hints?: ToolHints;
  run(
    args: { [key: string]: JsonValue },
    context: BuiltinToolContext,
  ): ToolResult | Promise<ToolResult>;
}

/** A toolset of built-in tools, which every tenant has. */
export interface BuiltinToolset {
  name: string;
  tools: readonly BuiltinTool[];
}
