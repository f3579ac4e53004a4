/** Where the composed gateway mounts its MCP host (CONTRACT 6). */
export const MCP_PATH = '/mcp';

export const MCP_MODULE_OPTIONS = Symbol('McpModuleOptions');

export interface McpModuleOptions {
  /** Mount path: POST/GET/DELETE at `path` (with or without a trailing slash), `path/health`. */
  path: string;
  /** Reported as `serverInfo.version` in the initialize result. */
  version?: string;
}

/** `mcp`, `/mcp/` and `/mcp` all mount at `/mcp`. */
export function normalizeMountPath(path: string): string {
  const trimmed = path.trim().replace(/^\/+|\/+$/g, '');
  if (!/^[A-Za-z0-9._~\-/]+$/.test(trimmed)) {
    throw new Error(`MCP mount path must be a non-empty URL path (got ${JSON.stringify(path)})`);
  }
  return `/${trimmed}`;
}

/**
 * The routes of a host mounted at `path`, for excluding them from the gateway's JSON body
 * middleware: the MCP transport reads its own body so malformed JSON is a JSON-RPC -32700.
 */
export function mcpRoutes(path: string): string[] {
  const mount = normalizeMountPath(path);
  return [mount, `${mount}/{*rest}`];
}
