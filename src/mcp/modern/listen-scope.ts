import { AsyncLocalStorage } from 'node:async_hooks';

/** The tenant and toolset whose changes a `subscriptions/listen` stream may hear. */
export interface ListenScope {
  tenantId: string;
  toolset: string;
}

/**
 * Set around each 2026-07-28 request: the SDK's listen router subscribes to the change bus from
 * inside the request, and this is how the bus learns whose stream is subscribing.
 */
export const listenScope = new AsyncLocalStorage<ListenScope>();
