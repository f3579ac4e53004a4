import type { Server } from '@modelcontextprotocol/server';
import type { CatalogChanges } from '../../catalog/catalog-changes.js';

/** URIs one legacy session may watch: enough for any client, bounded for the replica. */
const MAX_SUBSCRIPTIONS = 256;

/**
 * `resources/subscribe` for one legacy session: the session's Server hears of changes to the
 * URIs its client subscribed to (`notifications/resources/updated`), announced from any
 * replica. (2026-07-28 clients use `subscriptions/listen` instead; see ModernEndpoint.)
 */
export class ResourceSubscriptions {
  private readonly uris = new Map<string, string>();
  private stop?: () => void;

  constructor(
    private readonly server: Server,
    private readonly changes: CatalogChanges,
  ) {}

  subscribe(tenantId: string, uri: string): void {
    if (this.uris.size >= MAX_SUBSCRIPTIONS && !this.uris.has(uri)) return;
    this.uris.set(uri, tenantId);
    this.stop ??= this.changes.subscribe((change) => {
      if (change.uri === undefined || this.uris.get(change.uri) !== change.tenantId) return;
      this.server
        .notification({ method: 'notifications/resources/updated', params: { uri: change.uri } })
        .catch(() => undefined);
    });
  }

  unsubscribe(uri: string): void {
    this.uris.delete(uri);
  }

  close(): void {
    this.stop?.();
    this.uris.clear();
  }
}
