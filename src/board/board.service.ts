import { Injectable } from '@nestjs/common';
import { AuditSink } from '../platform/audit/audit-sink.js';
import { ProblemException, ValidationProblem } from '../platform/http/problem.js';
import {
  BoardCardStore,
  BoardFullError,
  type CardChanges,
  type CardRecord,
} from './board-card.store.js';
import {
  BOARD_COLUMNS,
  type BoardColumn,
  DEFAULT_COLUMN,
  MAX_CARDS_PER_TENANT,
  isBoardColumn,
} from './board.limits.js';

/** A card as the REST surface and the board tools answer it. */
export type CardView = {
  id: string;
  tenant_id: string;
  title: string;
  description: string;
  column: BoardColumn;
  position: number;
  assignee: string | null;
  created_at: string;
  updated_at: string;
};

export type BoardView = {
  tenant_id: string;
  columns: Array<{ name: BoardColumn; cards: CardView[] }>;
};

export interface CreateCardInput {
  title: string;
  description?: string;
  assignee?: string | null;
  column?: string;
  position?: number;
}

export function cardView(card: CardRecord): CardView {
  return {
    id: card.id,
    tenant_id: card.tenantId,
    title: card.title,
    description: card.description,
    column: card.column,
    position: card.position,
    assignee: card.assignee,
    created_at: new Date(card.createdAt).toISOString(),
    updated_at: new Date(card.updatedAt).toISOString(),
  };
}

function cardNotFound(tenantId: string, id: string): ProblemException {
  return new ProblemException(
    404,
    `tenant "${tenantId}" has no card ${JSON.stringify(id)}`,
    'card-not-found',
  );
}

/** A card that was created, changed, moved or deleted. */
export type CardChangeListener = (change: { tenantId: string; cardId: string }) => void;

/** DTOs and tool schemas check the column first; this guards every other caller. */
function column(name: string): BoardColumn {
  if (isBoardColumn(name)) return name;
  const message = `column must be one of ${BOARD_COLUMNS.join(', ')}`;
  throw new ValidationProblem([{ path: 'column', message }], message);
}

/**
 * The board's use cases, shared by the REST surface and the `board` toolset: each answers the
 * API's card shape, audits changes as `board.changed`, and throws problems: 404
 * `card-not-found` (also for another tenant's card), 400 for an unknown column, 409
 * `board-full`.
 */
@Injectable()
export class BoardService {
  private readonly cardListeners = new Set<CardChangeListener>();

  constructor(
    private readonly cards: BoardCardStore,
    private readonly audit: AuditSink,
  ) {}

  async board(tenantId: string): Promise<BoardView> {
    const cards = await this.cards.list(tenantId);
    return {
      tenant_id: tenantId,
      columns: BOARD_COLUMNS.map((name) => ({
        name,
        cards: cards.filter((card) => card.column === name).map(cardView),
      })),
    };
  }

  async card(tenantId: string, id: string): Promise<CardView> {
    const card = await this.cards.get(tenantId, id);
    if (!card) throw cardNotFound(tenantId, id);
    return cardView(card);
  }

  async create(tenantId: string, input: CreateCardInput, actor?: string): Promise<CardView> {
    try {
      const card = await this.cards.create(
        {
          tenantId,
          title: input.title,
          description: input.description ?? '',
          assignee: input.assignee ?? null,
          column: column(input.column ?? DEFAULT_COLUMN),
          position: input.position,
        },
        MAX_CARDS_PER_TENANT,
      );
      this.changed('created', card, actor);
      return cardView(card);
    } catch (error) {
      if (!(error instanceof BoardFullError)) throw error;
      throw new ProblemException(
        409,
        `tenant "${tenantId}" already has ${error.limit} cards; delete some first`,
        'board-full',
      );
    }
  }

  async update(
    tenantId: string,
    id: string,
    changes: CardChanges,
    actor?: string,
  ): Promise<CardView> {
    const card = await this.cards.update(tenantId, id, changes);
    if (!card) throw cardNotFound(tenantId, id);
    this.changed('updated', card, actor);
    return cardView(card);
  }

  async move(
    tenantId: string,
    id: string,
    to: { column: string; position?: number },
    actor?: string,
  ): Promise<CardView> {
    const card = await this.cards.move(tenantId, id, column(to.column), to.position);
    if (!card) throw cardNotFound(tenantId, id);
    this.changed('moved', card, actor);
    return cardView(card);
  }

  async remove(
    tenantId: string,
    id: string,
    actor?: string,
  ): Promise<{ tenant_id: string; id: string; deleted: true }> {
    const card = await this.cards.remove(tenantId, id);
    if (!card) throw cardNotFound(tenantId, id);
    this.changed('deleted', card, actor);
    return { tenant_id: tenantId, id, deleted: true };
  }

  /** Hears every card change made on this replica; returns the unsubscribe function. */
  onCardChanged(listener: CardChangeListener): () => void {
    this.cardListeners.add(listener);
    return () => this.cardListeners.delete(listener);
  }

  private changed(action: string, card: CardRecord, actor?: string): void {
    for (const listener of this.cardListeners) {
      try {
        listener({ tenantId: card.tenantId, cardId: card.id });
      } catch {
        // A listener (the MCP host's notices) must never fail a board change.
      }
    }
    this.audit.record({
      kind: 'board.changed',
      tenantId: card.tenantId,
      actor,
      details: { action, card: card.id, column: card.column, position: card.position },
    });
  }
}
