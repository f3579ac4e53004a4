import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { UpstreamConnections } from '../../tools/upstream/upstream-connections.js';
import { ChangeNotices } from './change-notices.js';

/**
 * An upstream MCP server that says its prompts or resources changed changed those of the
 * toolset holding it: its clients (of that tenant and toolset) are told, on every replica, as
 * they are of its tools (UpstreamChangeAnnouncer). Each replica connected to the upstream
 * hears it on its own connection, so a client may hear one change more than once: a
 * list-changed notice is a hint to list again, and saying it twice costs a listing.
 */
@Injectable()
export class UpstreamListRelay implements OnModuleInit, OnModuleDestroy {
  private stop?: () => void;

  constructor(
    private readonly connections: UpstreamConnections,
    private readonly notices: ChangeNotices,
  ) {}

  onModuleInit(): void {
    this.stop = this.connections.onListChanged(({ tenantId, toolset }, list) => {
      const kind = list === 'prompts' ? 'prompts_list_changed' : 'resources_list_changed';
      void this.notices.announce({ scope: { tenantId, toolset }, event: { kind } });
    });
  }

  onModuleDestroy(): void {
    this.stop?.();
  }
}
