import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type EntityManager, Not } from 'typeorm';
import { BoardDatabase } from './board-database.js';
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
 * Cards in the board database (sqlite or PostgreSQL: the same statements). Within a (tenant,
 * column) positions are 0..n-1: creating, moving and deleting renumber the neighbours in the
 * same transaction, which `BoardDatabase.write` keeps apart from every other change of the
 * tenant's board, so a reader never sees a gap or a duplicate. Every query names the tenant: one
 * tenant never reads or moves another's card.
 */
@Injectable()
export class BoardCardStore {
  constructor(private readonly database: BoardDatabase) {}

  /** All of a tenant's cards, by column name then position. */
  list(tenantId: string): Promise<CardRecord[]> {
    return this.database.read(async (manager) => {
      const cards = await manager.find(BoardCardEntity, {
        where: { tenantId },
        order: { column: 'ASC', position: 'ASC', createdAt: 'ASC' },
      });
      return cards.map(toRecord);
    });
  }

  get(tenantId: string, id: string): Promise<CardRecord | null> {
    return this.database.read((manager) => this.find(manager, tenantId, id));
  }

  /** Inserts the card at its place; throws BoardFullError when the tenant has `limit` cards. */
  create(card: NewCard, limit: number): Promise<CardRecord> {
    return this.database.write(card.tenantId, async (manager) => {
      if ((await this.count(manager, card.tenantId)) >= limit) throw new BoardFullError(limit);
      const position = placement(
        card.position,
        await this.count(manager, card.tenantId, card.column),
      );
      await this.shift(manager, card.tenantId, card.column, position, +1);
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
      await manager.insert(BoardCardEntity, record);
      return record;
    });
  }

  /** Changes title, description or assignee; null when the tenant has no such card. */
  update(tenantId: string, id: string, changes: CardChanges): Promise<CardRecord | null> {
    return this.database.write(tenantId, async (manager) => {
      const card = await this.find(manager, tenantId, id);
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
      await manager.update(
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
    return this.database.write(tenantId, async (manager) => {
      const card = await this.find(manager, tenantId, id);
      if (!card) return null;
      // Take the card out of its column, then make room at the target.
      await this.shift(manager, tenantId, card.column, card.position + 1, -1, id);
      const others = await this.count(manager, tenantId, column, id);
      const target = placement(position, others);
      await this.shift(manager, tenantId, column, target, +1, id);
      const updatedAt = Date.now();
      await manager.update(
        BoardCardEntity,
        { tenantId, id },
        { column, position: target, updatedAt },
      );
      return { ...card, column, position: target, updatedAt };
    });
  }

  /** Deletes the card and closes its gap; returns it, or null when there was none. */
  remove(tenantId: string, id: string): Promise<CardRecord | null> {
    return this.database.write(tenantId, async (manager) => {
      const card = await this.find(manager, tenantId, id);
      if (!card) return null;
      await manager.delete(BoardCardEntity, { tenantId, id });
      await this.shift(manager, tenantId, card.column, card.position + 1, -1);
      return card;
    });
  }

  private async find(manager: EntityManager, tenantId: string, id: string) {
    if (id.length > MAX_CARD_ID) return null;
    const card = await manager.findOneBy(BoardCardEntity, { tenantId, id });
    return card && toRecord(card);
  }

  /** Cards of the tenant, or of one of its columns (leaving out the card `except`). */
  private async count(
    manager: EntityManager,
    tenantId: string,
    column?: BoardColumn,
    except?: string,
  ): Promise<number> {
    return manager.countBy(BoardCardEntity, {
      tenantId,
      ...(column === undefined ? {} : { column }),
      ...(except === undefined ? {} : { id: Not(except) }),
    });
  }

  /**
   * Moves every card of the column at `from` or later (but `except`) by `by` places: one
   * statement, which the query builder writes in either dialect.
   */
  private async shift(
    manager: EntityManager,
    tenantId: string,
    column: BoardColumn,
    from: number,
    by: 1 | -1,
    except?: string,
  ): Promise<void> {
    const update = manager
      .createQueryBuilder()
      .update(BoardCardEntity)
      .set({ position: () => (by > 0 ? 'position + 1' : 'position - 1') })
      .where('tenant_id = :tenantId AND column_name = :column AND position >= :from', {
        tenantId,
        column,
        from,
      });
    if (except !== undefined) update.andWhere('id <> :except', { except });
    await update.execute();
  }
}
