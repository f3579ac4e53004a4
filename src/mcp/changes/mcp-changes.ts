import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { ServerEvent } from '@modelcontextprotocol/server';
import { CatalogChanges } from '../../catalog/catalog-changes.js';
import { ToolsetChanges } from '../../tools/toolset-changes.js';
import { BuiltInResources } from '../features/built-in-resources.js';
import { ChangeNotices, type NoticeScope } from './change-notices.js';
import type { ChangeScope } from './change-scope.js';

export type ChangeListener = (event: ServerEvent) => void;

interface Subscriber {
  scope: ChangeScope;
  listener: ChangeListener;
}

/**
 * Every change an MCP client of this replica may be told of, from whichever replica made it,
 * partitioned by tenant: a listener hears its own tenant's prompt and resource changes and its
 * own toolset's tool changes (and its toolset's upstream prompts and resources), never another
 * tenant's, and of a gateway document (a card, a run) only if its key may read it. Both eras listen here: a 2026-07-28 `subscriptions/listen` stream (through
 * TenantChangeBus) and a 2025 session (SessionChanges). One subscription per source and replica,
 * whatever the number of listeners.
 */
@Injectable()
export class McpChanges implements OnModuleDestroy {
  private readonly tenants = new Map<string, Set<Subscriber>>();
  private readonly sources: Array<() => void>;

  constructor(
    toolsets: ToolsetChanges,
    catalog: CatalogChanges,
    notices: ChangeNotices,
    private readonly documents: BuiltInResources,
  ) {
    this.sources = [
      toolsets.subscribe((change) => this.publish(change, { kind: 'tools_list_changed' })),
      catalog.subscribe(({ tenantId, kind, uri }) => {
        if (kind === 'prompts') return this.publish({ tenantId }, { kind: 'prompts_list_changed' });
        this.publish({ tenantId }, { kind: 'resources_list_changed' });
        if (uri !== undefined) this.publish({ tenantId }, { kind: 'resource_updated', uri });
      }),
      notices.subscribe(({ scope, event }) => this.publish(scope, event)),
    ];
  }

  /** Listeners on this replica. */
  get size(): number {
    let total = 0;
    for (const set of this.tenants.values()) total += set.size;
    return total;
  }

  /** `listener` hears the changes `scope` may hear until the returned function is called. */
  subscribe(scope: ChangeScope, listener: ChangeListener): () => void {
    let set = this.tenants.get(scope.tenantId);
    if (!set) {
      set = new Set();
      this.tenants.set(scope.tenantId, set);
    }
    const subscriber = { scope, listener };
    set.add(subscriber);
    return () => {
      set.delete(subscriber);
      if (set.size === 0 && this.tenants.get(scope.tenantId) === set) {
        this.tenants.delete(scope.tenantId);
      }
    };
  }

  onModuleDestroy(): void {
    for (const stop of this.sources) stop();
  }

  /** A `toolset` in the scope limits the event to listeners of that toolset. */
  private publish(scope: NoticeScope, event: ServerEvent): void {
    for (const subscriber of this.tenants.get(scope.tenantId) ?? []) {
      if (scope.toolset !== undefined && subscriber.scope.toolset !== scope.toolset) continue;
      if (
        event.kind === 'resource_updated' &&
        !this.documents.mayHear(subscriber.scope.permissions, event.uri)
      ) {
        continue;
      }
      try {
        subscriber.listener(event);
      } catch {
        // One broken stream must not keep the change from the others.
      }
    }
  }
}
