import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ToolsetChanges } from '../toolset-changes.js';
import { UpstreamToolLists } from './upstream-tool-lists.js';

/**
 * When an upstream says its tools changed, the toolset that holds it changed too: announced
 * like a registration, so the gateway's own MCP clients hear `notifications/tools/list_changed`.
 */
@Injectable()
export class UpstreamChangeAnnouncer implements OnModuleInit, OnModuleDestroy {
  private unsubscribe?: () => void;

  constructor(
    private readonly lists: UpstreamToolLists,
    private readonly changes: ToolsetChanges,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.lists.onChange(({ tenantId, toolset }) => {
      void this.changes.announce({ tenantId, toolset });
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }
}
