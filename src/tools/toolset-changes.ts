import { Injectable, Logger } from '@nestjs/common';
import { StateNotifications } from '../platform/state/state-notifications.js';

const CHANNEL = 'svc_toolset_changed';

export interface ToolsetChange {
  tenantId: string;
  toolset: string;
}

function parse(payload: string): ToolsetChange | null {
  try {
    const value = JSON.parse(payload) as unknown;
    if (!Array.isArray(value)) return null;
    const [tenantId, toolset] = value as unknown[];
    return typeof tenantId === 'string' && typeof toolset === 'string'
      ? { tenantId, toolset }
      : null;
  } catch {
    return null;
  }
}

/**
 * Tells every replica that a tenant's toolset changed (a tool registered, replaced or deleted),
 * so MCP clients listening for `notifications/tools/list_changed` hear of it wherever they are
 * connected. A hint through the state backend's notifications, never the data.
 */
@Injectable()
export class ToolsetChanges {
  private readonly logger = new Logger('ToolsetChanges');

  constructor(private readonly notifications: StateNotifications) {}

  /** Best effort: a lost hint costs a client a stale list, never the change itself. */
  async announce(change: ToolsetChange): Promise<void> {
    try {
      await this.notifications.notify(CHANNEL, JSON.stringify([change.tenantId, change.toolset]));
    } catch (error) {
      this.logger.warn({ err: error }, 'could not announce a toolset change');
    }
  }

  /** Calls `handler` for every change announced on any replica; returns the unsubscribe. */
  subscribe(handler: (change: ToolsetChange) => void): () => void {
    return this.notifications.listen(CHANNEL, (payload) => {
      const change = parse(payload);
      if (change) handler(change);
    });
  }
}
