import type { Server, ServerContext } from '@modelcontextprotocol/server';
import { SERVED_REVISIONS } from '../protocol-revisions.js';

type Handler = (request: unknown, ctx: ServerContext) => unknown;
type Register = (method: string, handler: Handler) => void;

function withServedRevisions(result: unknown): unknown {
  if (result === null || typeof result !== 'object' || !('supportedVersions' in result)) {
    return result;
  }
  const listed = result.supportedVersions;
  const own = Array.isArray(listed) ? listed.filter((v): v is string => typeof v === 'string') : [];
  return { ...result, supportedVersions: [...new Set([...own, ...SERVED_REVISIONS])] };
}

/**
 * Makes `server/discover` list every revision the endpoint serves, not only 2026-07-28: the
 * spec's `supportedVersions` is the server's, and this endpoint also serves 2025-11-25 back to
 * 2024-11-05 (through `initialize`). The SDK installs its discover handler itself once it has
 * classified a request as 2026-07-28 (after our factory ran), and lists only modern revisions;
 * so the answer of whatever handler it installs for `server/discover` is completed here, the
 * registration itself left to the SDK.
 */
export function listServedRevisions(server: Server): void {
  const target = server as unknown as { setRequestHandler: Register };
  const register = target.setRequestHandler.bind(server);
  target.setRequestHandler = (method, handler) =>
    register(
      method,
      method === 'server/discover'
        ? async (request, ctx) => withServedRevisions(await handler(request, ctx))
        : handler,
    );
}
