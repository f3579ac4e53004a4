import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import { type ListenScope, listenScope } from './listen-scope.js';

type Listener = (event: ServerEvent) => void;

interface Subscriber {
  toolset: string;
  listener: Listener;
}

/**
 * The change bus behind `subscriptions/listen`, partitioned by tenant: a stream hears only the
 * changes of its own tenant, and of tools only those of the toolset its request named (the
 * SDK's bus is one broadcast set, which would tell every tenant of every other tenant's
 * changes). A listener subscribed outside a request scope hears nothing.
 */
export class TenantChangeBus implements ServerEventBus {
  private readonly tenants = new Map<string, Set<Subscriber>>();

  /** Unscoped publishing (the SDK's `notify` sugar) is not used: changes are always scoped. */
  publish(): void {}

  /** `toolset` limits the event to streams of that toolset (tool list changes). */
  publishFor(scope: { tenantId: string; toolset?: string }, event: ServerEvent): void {
    for (const subscriber of this.tenants.get(scope.tenantId) ?? []) {
      if (scope.toolset !== undefined && subscriber.toolset !== scope.toolset) continue;
      try {
        subscriber.listener(event);
      } catch {
        // One broken stream must not keep the change from the others.
      }
    }
  }

  subscribe(listener: Listener): () => void {
    const scope: ListenScope | undefined = listenScope.getStore();
    if (!scope) return () => {};
    let set = this.tenants.get(scope.tenantId);
    if (!set) {
      set = new Set();
      this.tenants.set(scope.tenantId, set);
    }
    const subscriber = { toolset: scope.toolset, listener };
    set.add(subscriber);
    return () => {
      set.delete(subscriber);
      if (set.size === 0 && this.tenants.get(scope.tenantId) === set) {
        this.tenants.delete(scope.tenantId);
      }
    };
  }

  get size(): number {
    let total = 0;
    for (const set of this.tenants.values()) total += set.size;
    return total;
  }
}
