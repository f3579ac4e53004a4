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

/** The routes of a host mounted at `path`, as Nest route paths (for its own middleware). */
export function mcpRoutes(path: string): string[] {
  const mount = normalizeMountPath(path);
  return [mount, `${mount}/{*rest}`];
}

/**
 * Whether a request path is one of those routes (the mount or below it), matched as Express
 * matches routes: case-insensitively, with or without a trailing slash. The gateway's JSON body
 * parser skips them: the MCP transport reads its own body, so malformed JSON is a JSON-RPC
 * -32700.
 */
export function underMcpMount(path: string): (requestPath: string) => boolean {
  const mount = normalizeMountPath(path).toLowerCase();
  const below = `${mount}/`;
  return (requestPath) => {
    const lower = requestPath.toLowerCase();
    return lower === mount || lower.startsWith(below);
  };
}
