/** The toolset every tenant has; it holds the built-in tools. */
export const DEFAULT_TOOLSET = 'default';

/** Toolset (and prompt, resource, agent) names: short and URL-safe. */
export const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
export const NAME_MESSAGE = 'must be 1 to 64 letters, digits, "_", "." or "-"';

/**
 * Tool names: MCP's own rule (SEP-986), up to 128. Model providers with a narrower rule get an
 * alias at their boundary (providers/function-names.ts).
 */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
export const TOOL_NAME_MESSAGE = 'must be 1 to 128 letters, digits, "_", "." or "-"';

export const MAX_DESCRIPTION = 1024;
export const MAX_ENDPOINT_URL = 2048;
/** A tool's JSON Schema, serialised; keeps toolset entries and schema compilation bounded. */
export const MAX_SCHEMA_BYTES = 64 * 1024;
/** Nesting of a tool's JSON Schema (objects and arrays); ajv compiles it recursively. */
export const MAX_SCHEMA_DEPTH = 64;
/** `pattern`s and `patternProperties` keys in one schema; each takes RE2 a while to compile. */
export const MAX_SCHEMA_PATTERNS = 256;
/** Their text together: RE2's compile time grows with it, so it is bounded before compiling. */
export const MAX_SCHEMA_PATTERN_TEXT = 16 * 1024;
/** Their automata together (RE2 instructions): bounds matching cost and program memory. */
export const MAX_SCHEMA_PATTERN_PROGRAM = 20_000;
/** OpenAI-compatible providers accept at most 128 tools per request. */
export const MAX_TOOLS_PER_TOOLSET = 128;
export const MAX_TOOLSETS_PER_TENANT = 100;
/** Largest JSON body an HTTP tool may answer with. */
export const MAX_TOOL_RESPONSE_BYTES = 1024 * 1024;

export function isName(value: string): boolean {
  return NAME_PATTERN.test(value);
}

export function isToolName(value: string): boolean {
  return TOOL_NAME_PATTERN.test(value);
}
