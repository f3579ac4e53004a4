import type { JsonValue } from '../platform/state/state-store.js';
import type { InputRequired } from './upstream/upstream-input.js';

/** JSON Schema of a tool's arguments: an object schema (`type: object`, `properties`). */
export type JsonSchemaObject = { type: 'object'; properties?: Record<string, unknown> } & Record<
  string,
  unknown
>;

/** The spec's tool specification. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchemaObject;
}

/**
 * What a built-in tool does to the world, for clients that present tools (MCP's title and
 * annotations). The gateway cannot know this of an HTTP tool, so those have none.
 */
export interface ToolHints {
  title: string;
  /** Changes nothing. */
  readOnly: boolean;
  /** May delete or overwrite data (meaningful only when not read-only). */
  destructive: boolean;
  /** Calling again with the same arguments changes nothing more. */
  idempotent: boolean;
  /** Reaches systems outside the gateway. */
  openWorld: boolean;
}

/** A toolset as one tenant sees it: its contracts at one version. */
export interface ToolsetView {
  tenantId: string;
  toolset: string;
  /** Bumped on every change the tenant makes to this toolset; 0 = never changed. */
  version: number;
  tools: ToolSpec[];
}

/** One tool call to execute, from any surface (REST, the agent loop, MCP). */
export interface ToolInvocation {
  tenantId: string;
  toolset: string;
  name: string;
  arguments: JsonValue;
}

/** What a tool call produced. `isError` is a tool-level failure the caller (or model) should see. */
export interface ToolOutcome {
  tool: string;
  toolset: string;
  version: number;
  result: JsonValue;
  isError: boolean;
  /** The tool (an upstream MCP tool) needs the calling MCP client's input before it answers. */
  inputRequired?: InputRequired;
}
