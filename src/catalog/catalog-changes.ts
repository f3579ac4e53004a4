import { Injectable, Logger } from '@nestjs/common';
import { StateNotifications } from '../platform/state/state-notifications.js';

const CHANNEL = 'svc_catalog_changed';

/** A change to a tenant's prompts or resources; `uri` names the resource that changed. */
export interface CatalogChange {
  tenantId: string;
  kind: 'prompts' | 'resources';
  uri?: string;
}

function parse(payload: string): CatalogChange | null {
  try {
    const [tenantId, kind, uri] = JSON.parse(payload) as unknown[];
    if (typeof tenantId !== 'string' || (kind !== 'prompts' && kind !== 'resources')) return null;
    return { tenantId, kind, ...(typeof uri === 'string' ? { uri } : {}) };
  } catch {
    return null;
  }
}

/**
 * Tells every replica that a tenant's prompts or resources changed, so MCP clients listening
 * for list changes (and resource updates) hear of it wherever they are connected. A hint
 * through the state backend's notifications, never the data.
 */
@Injectable()
export class CatalogChanges {
  private readonly logger = new Logger('CatalogChanges');

  constructor(private readonly notifications: StateNotifications) {}

  /** Best effort: a lost hint costs a client a stale list, never the change itself. */
  async announce(change: CatalogChange): Promise<void> {
    const payload = JSON.stringify([change.tenantId, change.kind, change.uri ?? null]);
    try {
      await this.notifications.notify(CHANNEL, payload);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not announce a catalog change');
    }
  }

  subscribe(handler: (change: CatalogChange) => void): () => void {
    return this.notifications.listen(CHANNEL, (payload) => {
      const change = parse(payload);
      if (change) handler(change);
    });
  }
}
