import { HttpException, Injectable, type OnModuleInit } from '@nestjs/common';
import type { JsonValue } from '../platform/state/state-store.js';
import type {
  BuiltinTool,
  BuiltinToolContext,
  ToolResult,
} from '../tools/builtin/builtin-tool.types.js';
import { BuiltinTools } from '../tools/builtin/builtin-tools.js';
import type { ToolHints } from '../tools/tool.types.js';
import {
  BOARD_COLUMNS,
  MAX_ASSIGNEE,
  MAX_CARD_ID,
  MAX_CARDS_PER_TENANT,
  MAX_DESCRIPTION,
  MAX_TITLE,
} from './board.limits.js';
import { BoardService } from './board.service.js';

/** The built-in toolset that lets agents (and MCP clients) work the tenant's board. */
export const BOARD_TOOLSET = 'board';

type Args = { [key: string]: JsonValue };

const id = { type: 'string', minLength: 1, maxLength: MAX_CARD_ID, description: 'The card id.' };
const title = { type: 'string', minLength: 1, maxLength: MAX_TITLE, pattern: '\\S' };
const description = { type: 'string', maxLength: MAX_DESCRIPTION };
const assignee = { type: 'string', minLength: 1, maxLength: MAX_ASSIGNEE };
const column = { type: 'string', enum: [...BOARD_COLUMNS] };
const position = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_CARDS_PER_TENANT,
  description: '0-based place in the column; omitted or past the end: last.',
};

const hints = (name: string, change: Partial<ToolHints> = {}): ToolHints => ({
  title: name,
  readOnly: false,
  destructive: false,
  idempotent: false,
  openWorld: false,
  ...change,
});

/**
 * A failure the caller can act on (no such card, board full) is a tool-level error the model
 * reads, like a calculator's division by zero; anything else stays an exception.
 */
async function attempt(work: () => Promise<JsonValue>): Promise<ToolResult> {
  try {
    return { result: await work(), isError: false };
  } catch (error) {
    if (error instanceof HttpException && error.getStatus() < 500) {
      return { result: error.message, isError: true };
    }
    throw error;
  }
}

function optionalString(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function optionalInteger(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** The tools, bound to the board service; arguments arrive valid against their schemas. */
export function boardTools(board: BoardService): BuiltinTool[] {
  const tool = (
    spec: BuiltinTool['spec'],
    toolHints: ToolHints,
    run: (args: Args, context: BuiltinToolContext) => Promise<JsonValue>,
  ): BuiltinTool => ({
    spec,
    hints: toolHints,
    run: (args, context) => attempt(() => run(args, context)),
  });
  return [
    tool(
      {
        name: 'board_list',
        description:
          `The Kanban board: its columns (${BOARD_COLUMNS.join(', ')}) in order, each with its ` +
          'cards in order (id, title, description, column, position, assignee, timestamps).',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
      },
      hints('List board cards', { readOnly: true, idempotent: true }),
      (_args, { tenantId }) => board.board(tenantId),
    ),
    tool(
      {
        name: 'board_create_card',
        description: 'Adds a card to the board, in column todo unless another is given.',
        parameters: {
          type: 'object',
          properties: { title, description, assignee, column, position },
          required: ['title'],
          additionalProperties: false,
        },
      },
      hints('Create a board card'),
      (args, { tenantId, actor }) =>
        board.create(
          tenantId,
          {
            title: args.title as string,
            description: optionalString(args.description),
            assignee: optionalString(args.assignee),
            column: optionalString(args.column),
            position: optionalInteger(args.position),
          },
          actor,
        ),
    ),
    tool(
      {
        name: 'board_move_card',
        description: 'Moves a card to a column (or to another place in its own column).',
        parameters: {
          type: 'object',
          properties: { id, column, position },
          required: ['id', 'column'],
          additionalProperties: false,
        },
      },
      hints('Move a board card', { idempotent: true }),
      (args, { tenantId, actor }) =>
        board.move(
          tenantId,
          args.id as string,
          { column: args.column as string, position: optionalInteger(args.position) },
          actor,
        ),
    ),
    tool(
      {
        name: 'board_update_card',
        description:
          'Changes the title, description or assignee of a card; assignee null unassigns it.',
        parameters: {
          type: 'object',
          properties: {
            id,
            title,
            description,
            assignee: { anyOf: [assignee, { type: 'null' }] },
          },
          required: ['id'],
          additionalProperties: false,
        },
      },
      hints('Update a board card', { destructive: true, idempotent: true }),
      (args, { tenantId, actor }) =>
        board.update(
          tenantId,
          args.id as string,
          {
            title: optionalString(args.title),
            description: optionalString(args.description),
            assignee: args.assignee === null ? null : optionalString(args.assignee),
          },
          actor,
        ),
    ),
    tool(
      {
        name: 'board_delete_card',
        description: 'Deletes a card from the board.',
        parameters: {
          type: 'object',
          properties: { id },
          required: ['id'],
          additionalProperties: false,
        },
      },
      hints('Delete a board card', { destructive: true, idempotent: true }),
      (args, { tenantId, actor }) => board.remove(tenantId, args.id as string, actor),
    ),
  ];
}

/** Registers toolset `board` among the built-ins when the module starts. */
@Injectable()
export class BoardToolset implements OnModuleInit {
  constructor(
    private readonly builtins: BuiltinTools,
    private readonly board: BoardService,
  ) {}

  onModuleInit(): void {
    this.builtins.register({ name: BOARD_TOOLSET, tools: boardTools(this.board) });
  }
}
