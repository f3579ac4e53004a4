import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Not, type QueryRunner } from 'typeorm';
import { BoardDatabase } from './board-database.service.js';
import { BoardCardEntity } from './entities/board-card.entity.js';
import { type BoardColumn, MAX_CARD_ID } from './board.limits.js';

/** A card as stored; times are epoch milliseconds. */
export interface CardRecord {
  id: string;
  tenantId: string;
  title: string;
  description: string;
  column: BoardColumn;
  position: number;
  assignee: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface NewCard {
  tenantId: string;
  title: string;
  description: string;
  assignee: string | null;
  column: BoardColumn;
  /** Where in the column; omitted or past the end: last. */
  position?: number;
}

export interface CardChanges {
  title?: string;
  description?: string;
  /** `null` removes the assignee. */
  assignee?: string | null;
}

/** The tenant already holds the most cards it may. */
export class BoardFullError extends Error {
  override readonly name = 'BoardFullError';
  constructor(readonly limit: number) {
    super(`the board already holds ${limit} cards`);
  }
}

function toRecord(entity: BoardCardEntity): CardRecord {
  // Written only through this store, which only writes the board's columns.
  return { ...entity, column: entity.column as BoardColumn };
}

/** `wanted` clamped into 0..size (size = the column's length without the card being placed). */
export function placement(wanted: number | undefined, size: number): number {
  if (wanted === undefined) return size;
  return Math.min(Math.max(0, Math.trunc(wanted)), size);
}

/**
 * Cards in the board database. Within a (tenant, column) positions are 0..n-1: creating,
 * moving and deleting renumber the neighbours in the same transaction, so a reader never sees
 * a gap or a duplicate. Every query names the tenant: one tenant never reads or moves
 * another's card.
 */
@Injectable()
export class BoardCardStore {
  constructor(private readonly database: BoardDatabase) {}

  /** All of a tenant's cards, by column name then position. */
  list(tenantId: string): Promise<CardRecord[]> {
    return this.database.exclusive(async (runner) => {
      const cards = await runner.manager.find(BoardCardEntity, {
        where: { tenantId },
        order: { column: 'ASC', position: 'ASC', createdAt: 'ASC' },
      });
      return cards.map(toRecord);
    });
  }

  get(tenantId: string, id: string): Promise<CardRecord | null> {
    return this.database.exclusive((runner) => this.find(runner, tenantId, id));
  }

  /** Inserts the card at its place; throws BoardFullError when the tenant has `limit` cards. */
  create(card: NewCard, limit: number): Promise<CardRecord> {
    return this.database.transaction(async (runner) => {
      if ((await this.count(runner, card.tenantId)) >= limit) throw new BoardFullError(limit);
      const position = placement(
        card.position,
        await this.count(runner, card.tenantId, card.column),
      );
      await this.shift(runner, card.tenantId, card.column, position, +1);
      const now = Date.now();
      const record: CardRecord = {
        id: randomUUID(),
        tenantId: card.tenantId,
        title: card.title,
        description: card.description,
        column: card.column,
        position,
        assignee: card.assignee,
        createdAt: now,
        updatedAt: now,
      };
      await runner.manager.insert(BoardCardEntity, record);
      return record;
    });
  }

  /** Changes title, description or assignee; null when the tenant has no such card. */
  update(tenantId: string, id: string, changes: CardChanges): Promise<CardRecord | null> {
    return this.database.transaction(async (runner) => {
      const card = await this.find(runner, tenantId, id);
      if (!card) return null;
      const next: CardRecord = {
        ...card,
        title: changes.title ?? card.title,
        description: changes.description ?? card.description,
        assignee: changes.assignee === undefined ? card.assignee : changes.assignee,
      };
      const changed =
        next.title !== card.title ||
        next.description !== card.description ||
        next.assignee !== card.assignee;
      if (!changed) return card;
      next.updatedAt = Date.now();
      const { title, description, assignee, updatedAt } = next;
      await runner.manager.update(
        BoardCardEntity,
        { tenantId, id },
        { title, description, assignee, updatedAt },
      );
      return next;
    });
  }

  /**
   * Moves the card to `position` of `column` (the same column reorders; omitted or past the
   * end: last). Null when the tenant has no such card.
   */
  move(
    tenantId: string,
    id: string,
    column: BoardColumn,
    position?: number,
  ): Promise<CardRecord | null> {
    return this.database.transaction(async (runner) => {
      const card = await this.find(runner, tenantId, id);
      if (!card) return null;
      // Take the card out of its column, then make room at the target.
      await this.shift(runner, tenantId, card.column, card.position + 1, -1, id);
      const others = await this.count(runner, tenantId, column, id);
      const target = placement(position, others);
      await this.shift(runner, tenantId, column, target, +1, id);
      const updatedAt = Date.now();
      await runner.manager.update(
        BoardCardEntity,
        { tenantId, id },
        { column, position: target, updatedAt },
      );
      return { ...card, column, position: target, updatedAt };
    });
  }

  /** Deletes the card and closes its gap; returns it, or null when there was none. */
  remove(tenantId: string, id: string): Promise<CardRecord | null> {
    return this.database.transaction(async (runner) => {
      const card = await this.find(runner, tenantId, id);
      if (!card) return null;
      await runner.manager.delete(BoardCardEntity, { tenantId, id });
      await this.shift(runner, tenantId, card.column, card.position + 1, -1);
      return card;
    });
  }

  private async find(runner: QueryRunner, tenantId: string, id: string) {
    if (id.length > MAX_CARD_ID) return null;
    const card = await runner.manager.findOneBy(BoardCardEntity, { tenantId, id });
    return card && toRecord(card);
  }

  /** Cards of the tenant, or of one of its columns (leaving out the card `except`). */
  private async count(
    runner: QueryRunner,
    tenantId: string,
    column?: BoardColumn,
    except?: string,
  ): Promise<number> {
    return runner.manager.countBy(BoardCardEntity, {
      tenantId,
      ...(column === undefined ? {} : { column }),
      ...(except === undefined ? {} : { id: Not(except) }),
    });
  }

  /** Moves every card of the column at `from` or later (but `except`) by `by` places: one statement. */
  private async shift(
    runner: QueryRunner,
    tenantId: string,
    column: BoardColumn,
    from: number,
    by: 1 | -1,
    except?: string,
  ): Promise<void> {
    await runner.query(
      `UPDATE board_cards SET position = position + ?
        WHERE tenant_id = ? AND column_name = ? AND position >= ? AND (? IS NULL OR id <> ?)`,
      [by, tenantId, column, from, except ?? null, except ?? null],
    );
  }
}
