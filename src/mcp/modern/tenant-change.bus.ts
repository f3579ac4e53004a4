import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import { listenScope } from '../changes/change-scope.js';
import type { McpChanges } from '../changes/mcp-changes.js';

/**
 * The SDK's event bus behind `subscriptions/listen`, over McpChanges: a stream hears only the
 * changes of the tenant (and toolset) of the request that opened it, read from `listenScope`
 * (the SDK's own bus is one broadcast set, which would tell every tenant of every other
 * tenant's changes). A listener subscribed outside a request scope hears nothing.
 */
export class TenantChangeBus implements ServerEventBus {
  constructor(private readonly changes: McpChanges) {}

  /** Unscoped publishing (the SDK's `notify` sugar) is not used: changes are always scoped. */
  publish(): void {}

  subscribe(listener: (event: ServerEvent) => void): () => void {
    const scope = listenScope.get();
    if (!scope) return () => {};
    return this.changes.subscribe(scope, listener);
  }
}
