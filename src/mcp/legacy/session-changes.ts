import type { Server, ServerEvent } from '@modelcontextprotocol/server';
import { ProtocolErrorCode } from '../../tools/mcp-sdk.js';
import type { ChangeScope } from '../changes/change-scope.js';
import type { McpChanges } from '../changes/mcp-changes.js';
import { RpcError } from '../mcp-errors.js';

/** URIs one session may watch: enough for any client, bounded for the replica. */
const MAX_SUBSCRIPTIONS = 256;

const LIST_CHANGED = {
  tools_list_changed: 'notifications/tools/list_changed',
  prompts_list_changed: 'notifications/prompts/list_changed',
  resources_list_changed: 'notifications/resources/list_changed',
} as const;

/**
 * What one 2025 session hears of changes, for as long as it lives: the list changes of the
 * tenant and toolset it was opened for, and updates of the resource URIs its client subscribed
 * to (`resources/subscribe`), from any replica (McpChanges). They go out on the session's GET
 * stream; while none is open they are kept in its event store, so a client that reconnects
 * with `Last-Event-ID` still gets them.
 */
export class SessionChanges {
  private readonly uris = new Set<string>();
  private readonly stop: () => void;

  constructor(
    private readonly server: Server,
    changes: McpChanges,
    scope: ChangeScope,
  ) {
    this.stop = changes.subscribe(scope, (event) => this.deliver(event));
  }

  subscribe(uri: string): void {
    if (this.uris.size >= MAX_SUBSCRIPTIONS && !this.uris.has(uri)) {
      throw new RpcError(
        ProtocolErrorCode.InvalidParams,
        `a session may subscribe to at most ${MAX_SUBSCRIPTIONS} resources; unsubscribe from some first`,
      );
    }
    this.uris.add(uri);
  }

  unsubscribe(uri: string): void {
    this.uris.delete(uri);
  }

  close(): void {
    this.stop();
    this.uris.clear();
  }

  private deliver(event: ServerEvent): void {
    const notification =
      event.kind === 'resource_updated'
        ? this.uris.has(event.uri)
          ? { method: 'notifications/resources/updated' as const, params: { uri: event.uri } }
          : undefined
        : { method: LIST_CHANGED[event.kind] };
    // A session whose transport is gone hears nothing more; it is closing anyway.
    if (notification) this.server.notification(notification).catch(() => undefined);
  }
}
