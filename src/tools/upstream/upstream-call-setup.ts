import type { Client, ClientCapabilities, LoggingLevel } from '@modelcontextprotocol/client';
import type { ToolLogEntry } from '../tool-stream.js';
import type { AskClient } from './upstream-input.js';

/** How a connection of its own is set up for one call (see UpstreamConnections.dedicated). */
export interface CallSetup {
  /** The calling client's input capabilities, declared as the connection's own. */
  capabilities?: ClientCapabilities;
  /** Where the upstream's requests of those kinds go: the calling client. */
  ask?: AskClient;
  /** Hears the upstream's log messages (`notifications/message`). */
  onLog?: (entry: ToolLogEntry) => void;
  /** The least severe level the caller hears; the upstream is asked for no more. */
  logLevel?: LoggingLevel;
}

/** The server→client request each input capability lets a server send. */
const ASKS = {
  elicitation: 'elicitation/create',
  sampling: 'sampling/createMessage',
  roots: 'roots/list',
} as const;

/**
 * Answers the upstream's requests of the kinds the calling client declared by asking that
 * client; a kind it did not declare stays unanswered (-32601), as it would be for the client.
 */
export function answerAsks(client: Client, { capabilities, ask }: CallSetup): void {
  if (!ask || !capabilities) return;
  for (const [capability, method] of Object.entries(ASKS)) {
    if (!(capability in capabilities)) continue;
    // The answer is the client's, checked by the SDK against the method's result schema.
    client.setRequestHandler(
      method as 'roots/list',
      async (request, ctx) =>
        (await ask({ method, params: request.params }, ctx.mcpReq.signal)) as never,
    );
  }
}
