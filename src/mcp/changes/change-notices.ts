import { Injectable, Logger } from '@nestjs/common';
import type { ServerEvent } from '@modelcontextprotocol/server';
import { type StateNotice, StateNotifications } from '../../platform/state/state-notifications.js';

const CHANNEL = 'svc_mcp_changed';

/** PostgreSQL's NOTIFY payload limit is 8000 bytes; a longer URI is not announced. */
const MAX_URI_LENGTH = 2048;

/**
 * Where a change is heard: a tenant's clients, or only those of one toolset (an upstream's
 * prompts and resources belong to the toolset that holds it).
 */
export interface NoticeScope {
  tenantId: string;
  toolset?: string;
}

export interface ChangeNotice {
  scope: NoticeScope;
  event: ServerEvent;
}

const KINDS: ReadonlySet<string> = new Set([
  'tools_list_changed',
  'prompts_list_changed',
  'resources_list_changed',
  'resource_updated',
]);

function parse(payload: string): ChangeNotice | null {
  try {
    const [tenantId, toolset, kind, uri] = JSON.parse(payload) as unknown[];
    if (typeof tenantId !== 'string' || typeof kind !== 'string' || !KINDS.has(kind)) return null;
    const scope = { tenantId, ...(typeof toolset === 'string' ? { toolset } : {}) };
    if (kind !== 'resource_updated') return { scope, event: { kind } as ServerEvent };
    return typeof uri === 'string' ? { scope, event: { kind, uri } } : null;
  } catch {
    return null;
  }
}

/**
 * Tells every replica of a change its MCP clients are told of that no other feature announces
 * for them: a gateway document changed (a board card, a run record), or an upstream MCP
 * server's prompts or resources changed. (Toolsets and the tenant catalog announce their own:
 * ToolsetChanges, CatalogChanges.) A hint through the state backend's notifications, never the
 * data: a lost one costs a client a stale view, never the change itself.
 */
@Injectable()
export class ChangeNotices {
  private readonly logger = new Logger('McpChangeNotices');

  constructor(private readonly notifications: StateNotifications) {}

  async announce(notice: ChangeNotice): Promise<void> {
    const note = this.noticeOf(notice);
    if (!note) return;
    try {
      await this.notifications.notify(note.channel, note.payload);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not announce an MCP change');
    }
  }

  /**
   * The notification that announces `notice`, for a statement that writes the change to send
   * itself; null when it is not announced (a URI too long for a notification).
   */
  noticeOf(notice: ChangeNotice): StateNotice | null {
    const { scope, event } = notice;
    const uri = event.kind === 'resource_updated' ? event.uri : null;
    if (uri !== null && uri.length > MAX_URI_LENGTH) return null;
    return {
      channel: CHANNEL,
      payload: JSON.stringify([scope.tenantId, scope.toolset ?? null, event.kind, uri]),
    };
  }

  subscribe(handler: (notice: ChangeNotice) => void): () => void {
    return this.notifications.listen(CHANNEL, (payload) => {
      const notice = parse(payload);
      if (notice) handler(notice);
    });
  }
}
