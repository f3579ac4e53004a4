import { AmbientSlot } from '../../platform/context/ambient-slot.js';

/**
 * Whose changes a client may hear: its tenant's, of tools only its toolset's, and of gateway
 * documents only those its key may read.
 */
export interface ChangeScope {
  tenantId: string;
  toolset: string;
  permissions: readonly string[];
}

/**
 * Set around each 2026-07-28 request: the SDK's listen router subscribes to the change bus from
 * inside the request, and this is how the bus learns whose stream is subscribing.
 */
export const listenScope = new AmbientSlot<ChangeScope>('svc.mcp.listen-scope');
