import { HttpException, Injectable } from '@nestjs/common';
import type {
  ReadResourceResult,
  ListResourceTemplatesResult,
  UriTemplate,
} from '@modelcontextprotocol/server';
import { BoardService } from '../../board/board.service.js';
import { permits } from '../../platform/auth/permissions.js';
import { runView } from '../../runs/record/run-record.mapper.js';
import { RunRecordStore } from '../../runs/record/run-record.store.js';
import { ProtocolErrorCode, mcpServerSdk } from '../../tools/mcp-sdk.js';
import { RpcError } from '../mcp-errors.js';
import type { McpContext } from '../tenant-context.js';

/** One `resources/templates/list` entry. */
type TemplateEntry = ListResourceTemplatesResult['resourceTemplates'][number];

interface Source {
  template: TemplateEntry;
  matcher: UriTemplate;
  /** What the caller's key needs, as on REST. */
  permission: string;
  read(tenantId: string, variables: Record<string, string>): Promise<unknown>;
}

const JSON_MIME = 'application/json';

const CARD_TEMPLATE = 'svc://board/cards/{card_id}';
const RUN_TEMPLATE = 'svc://runs/{run_id}';

/**
 * The URI that reads a card or a run: the id as is, since matching a template does not decode
 * (a client reads `svc://runs/r-1` for run `r-1`, and that is the URI it subscribes to).
 */
export const cardUri = (cardId: string) => `svc://board/cards/${cardId}`;
export const runUri = (runId: string) => `svc://runs/${runId}`;

/**
 * The gateway's own documents as MCP resource templates, per tenant: a board card
 * (`svc://board/cards/{card_id}`, needs `board:read`) and a run record
 * (`svc://runs/{run_id}`, needs `runs:read`), as their REST routes show them.
 */
@Injectable()
export class BuiltInResources {
  private built?: Source[];

  constructor(
    private readonly board: BoardService,
    private readonly runs: RunRecordStore,
  ) {}

  /** Built on first use, by the MCP host (whose SDK the URI templates are). */
  private get sources(): Source[] {
    this.built ??= this.build();
    return this.built;
  }

  private build(): Source[] {
    const { board, runs } = this;
    const { UriTemplate } = mcpServerSdk.get();
    return [
      {
        template: {
          uriTemplate: CARD_TEMPLATE,
          name: 'board-card',
          title: 'Board card',
          description: "A card of the tenant's Kanban board",
          mimeType: JSON_MIME,
        },
        matcher: new UriTemplate(CARD_TEMPLATE),
        permission: 'board:read',
        read: (tenantId, { card_id }) => board.card(tenantId, card_id ?? ''),
      },
      {
        template: {
          uriTemplate: RUN_TEMPLATE,
          name: 'run',
          title: 'Agent run',
          description: 'The status and result of an agent run',
          mimeType: JSON_MIME,
        },
        matcher: new UriTemplate(RUN_TEMPLATE),
        permission: 'runs:read',
        read: async (tenantId, { run_id }) => {
          const stored = await runs.get(tenantId, run_id ?? '');
          return stored && runView(stored);
        },
      },
    ];
  }

  templates(context: McpContext): TemplateEntry[] {
    return this.sources
      .filter((source) => permits(context.permissions, source.permission))
      .map((source) => source.template);
  }

  /**
   * Whether a key with `permissions` may hear of changes to `uri` (as it may read it): any URI
   * but a gateway document its key could not read.
   */
  mayHear(permissions: readonly string[], uri: string): boolean {
    const source = this.sources.find((candidate) => candidate.matcher.match(uri));
    return source === undefined || permits(permissions, source.permission);
  }

  /** The document at `uri`, null when no template matches; -32002 when it names nothing. */
  async read(context: McpContext, uri: string): Promise<ReadResourceResult | null> {
    for (const source of this.sources) {
      const matched = source.matcher.match(uri);
      if (!matched) continue;
      if (!permits(context.permissions, source.permission)) {
        throw new RpcError(
          ProtocolErrorCode.InvalidParams,
          `reading ${uri} needs ${source.permission}`,
        );
      }
      const variables = Object.fromEntries(
        Object.entries(matched).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(',') : value,
        ]),
      );
      const document = await source.read(context.tenantId, variables).catch((error: unknown) => {
        if (error instanceof HttpException && error.getStatus() === 404) return null;
        throw error;
      });
      if (!document) {
        throw new RpcError(ProtocolErrorCode.ResourceNotFound, `Resource not found: ${uri}`, {
          uri,
        });
      }
      return { contents: [{ uri, mimeType: JSON_MIME, text: JSON.stringify(document) }] };
    }
    return null;
  }
}
