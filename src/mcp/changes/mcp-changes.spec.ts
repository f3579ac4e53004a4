import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ServerEvent } from '@modelcontextprotocol/server';
import type { BoardService } from '../../board/board.service.js';
import type { CatalogChange, CatalogChanges } from '../../catalog/catalog-changes.js';
import type { RunRecordStore } from '../../runs/record/run-record.store.js';
import type { ToolsetChange, ToolsetChanges } from '../../tools/toolset-changes.js';
import { BuiltInResources } from '../features/built-in-resources.js';
import type { ChangeNotice, ChangeNotices } from './change-notices.js';
import { mcpServerSdk } from '../../tools/mcp-sdk.js';
import { McpChanges } from './mcp-changes.js';

// Listeners exist only behind the MCP host, which has loaded the SDK (tools/mcp-sdk.ts).
beforeAll(() => mcpServerSdk.load());

/** A change source whose announcements the test makes. */
function source<T>() {
  let handler: ((change: T) => void) | undefined;
  return {
    subscribe: (h: (change: T) => void) => {
      handler = h;
      return () => (handler = undefined);
    },
    announce: (change: T) => handler?.(change),
  };
}

function hub() {
  const toolsets = source<ToolsetChange>();
  const catalog = source<CatalogChange>();
  const notices = source<ChangeNotice>();
  const documents = new BuiltInResources({} as BoardService, {} as RunRecordStore);
  const changes = new McpChanges(
    toolsets as unknown as ToolsetChanges,
    catalog as unknown as CatalogChanges,
    notices as unknown as ChangeNotices,
    documents,
  );
  const listen = (tenantId: string, toolset: string, permissions: string[] = ['*']) => {
    const heard: ServerEvent[] = [];
    const stop = changes.subscribe({ tenantId, toolset, permissions }, (e) => heard.push(e));
    return { heard, stop };
  };
  return { changes, toolsets, catalog, notices, listen };
}

describe('McpChanges', () => {
  it("tells a tenant's listeners of its changes, of tools only its toolset's", () => {
    const { toolsets, catalog, listen } = hub();
    const ops = listen('acme', 'ops');
    const other = listen('acme', 'default');
    const stranger = listen('beta', 'ops');
    toolsets.announce({ tenantId: 'acme', toolset: 'ops' });
    catalog.announce({ tenantId: 'acme', kind: 'prompts' });
    catalog.announce({ tenantId: 'acme', kind: 'resources', uri: 'docs://a' });
    expect(ops.heard).toEqual([
      { kind: 'tools_list_changed' },
      { kind: 'prompts_list_changed' },
      { kind: 'resources_list_changed' },
      { kind: 'resource_updated', uri: 'docs://a' },
    ]);
    expect(other.heard.map((e) => e.kind)).not.toContain('tools_list_changed');
    expect(stranger.heard).toEqual([]);
  });

  it("tells of a gateway document only a key that may read it, and an upstream's changes only its toolset", () => {
    const { notices, listen } = hub();
    const reader = listen('acme', 'fed', ['board:read']);
    const blind = listen('acme', 'default', ['tools:call']);
    notices.announce({
      scope: { tenantId: 'acme' },
      event: { kind: 'resource_updated', uri: 'svc://board/cards/c-1' },
    });
    notices.announce({
      scope: { tenantId: 'acme', toolset: 'fed' },
      event: { kind: 'prompts_list_changed' },
    });
    expect(reader.heard).toEqual([
      { kind: 'resource_updated', uri: 'svc://board/cards/c-1' },
      { kind: 'prompts_list_changed' },
    ]);
    expect(blind.heard).toEqual([]);
  });

  it('forgets a listener that stopped, and keeps telling the others when one throws', () => {
    const { changes, toolsets, listen } = hub();
    const gone = listen('acme', 'ops');
    changes.subscribe({ tenantId: 'acme', toolset: 'ops', permissions: [] }, () => {
      throw new Error('broken stream');
    });
    const kept = listen('acme', 'ops');
    gone.stop();
    expect(changes.size).toBe(2);
    toolsets.announce({ tenantId: 'acme', toolset: 'ops' });
    expect(gone.heard).toEqual([]);
    expect(kept.heard).toEqual([{ kind: 'tools_list_changed' }]);
  });
});
