import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import { type ListenScope, listenScope } from './listen-scope.js';

type Listener = (event: ServerEvent) => void;

const key = (scope: ListenScope) => JSON.stringify([scope.tenantId, scope.toolset]);

/**
 * The change bus behind `subscriptions/listen`, partitioned by tenant and toolset: a stream
 * hears only the changes of the toolset its own request named (the SDK's bus is one broadcast
 * set, which would tell every tenant of every other tenant's changes). A listener subscribed
 * outside a request scope hears nothing.
 */
export class TenantChangeBus implements ServerEventBus {
  private readonly listeners = new Map<string, Set<Listener>>();

  /** Unscoped publishing (the SDK's `notify` sugar) is not used: changes are always scoped. */
  publish(): void {}

  publishFor(scope: ListenScope, event: ServerEvent): void {
    for (const listener of this.listeners.get(key(scope)) ?? []) {
      try {
        listener(event);
      } catch {
        // One broken stream must not keep the change from the others.
      }
    }
  }

  subscribe(listener: Listener): () => void {
    const scope = listenScope.getStore();
    if (!scope) return () => {};
    const id = key(scope);
    let set = this.listeners.get(id);
    if (!set) {
      set = new Set();
      this.listeners.set(id, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(id) === set) this.listeners.delete(id);
    };
  }

  get size(): number {
    let total = 0;
    for (const set of this.listeners.values()) total += set.size;
    return total;
  }
}
