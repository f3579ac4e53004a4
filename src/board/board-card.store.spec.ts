import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { BoardCardStore, BoardFullError, placement } from './board-card.store.js';
import { BoardDatabase } from './board-database.service.js';
import type { BoardColumn } from './board.limits.js';

describe('placement', () => {
  it('is the end when omitted, and clamps into 0..size', () => {
    expect(placement(undefined, 3)).toBe(3);
    expect(placement(0, 3)).toBe(0);
    expect(placement(2, 3)).toBe(2);
    expect(placement(9, 3)).toBe(3);
    expect(placement(-1, 3)).toBe(0);
    expect(placement(0, 0)).toBe(0);
  });
});

/** A real sqlite file: the renumbering is SQL, so it is tested against the database. */
describe('BoardCardStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-board-spec-'));
  const config = new ConfigService({ board: { dbPath: join(dir, 'nested', 'board.sqlite') } });
  const database = new BoardDatabase(config as unknown as ConfigService<GatewayConfig, true>);
  const store = new BoardCardStore(database);
  let tenant = 0;

  beforeAll(() => {
    Logger.overrideLogger(false); // "applied board migrations" is not news here
    return database.onModuleInit();
  });
  afterAll(async () => {
    await database.onApplicationShutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh tenant per test, so the tests share one database without seeing each other. */
  const freshTenant = () => `t${++tenant}`;
  const add = (tenantId: string, title: string, column: BoardColumn = 'todo', position?: number) =>
    store.create({ tenantId, title, description: '', assignee: null, column, position }, 1000);
  /** Titles per column, in position order, checking the positions are exactly 0..n-1. */
  async function layout(tenantId: string): Promise<Record<string, string[]>> {
    const columns: Record<string, string[]> = {};
    for (const card of await store.list(tenantId)) {
      const titles = (columns[card.column] ??= []);
      expect(card.position).toBe(titles.length);
      titles.push(card.title);
    }
    return columns;
  }

  it('appends by default and inserts at a given place, shifting the rest', async () => {
    const t = freshTenant();
    const a = await add(t, 'a');
    await add(t, 'b');
    await add(t, 'c', 'todo', 0);
    await add(t, 'd', 'todo', 2);
    await add(t, 'e', 'todo', 99);
    expect(a).toMatchObject({ tenantId: t, column: 'todo', position: 0, assignee: null });
    expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await layout(t)).toEqual({ todo: ['c', 'a', 'd', 'b', 'e'] });
  });

  it('moves within a column, down and up', async () => {
    const t = freshTenant();
    const [a] = [await add(t, 'a'), await add(t, 'b'), await add(t, 'c'), await add(t, 'd')];
    expect(await store.move(t, a.id, 'todo', 2)).toMatchObject({ column: 'todo', position: 2 });
    expect(await layout(t)).toEqual({ todo: ['b', 'c', 'a', 'd'] });
    await store.move(t, a.id, 'todo', 0);
    expect(await layout(t)).toEqual({ todo: ['a', 'b', 'c', 'd'] });
    // Without a position (or past the end) it goes last; in place it stays put.
    await store.move(t, a.id, 'todo');
    expect(await layout(t)).toEqual({ todo: ['b', 'c', 'd', 'a'] });
    await store.move(t, a.id, 'todo', 3);
    expect(await layout(t)).toEqual({ todo: ['b', 'c', 'd', 'a'] });
  });

  it('moves across columns, closing the gap and making room', async () => {
    const t = freshTenant();
    const a = await add(t, 'a');
    const b = await add(t, 'b');
    await add(t, 'c');
    await add(t, 'x', 'doing');
    await add(t, 'y', 'doing');
    await store.move(t, b.id, 'doing', 1);
    expect(await layout(t)).toEqual({ todo: ['a', 'c'], doing: ['x', 'b', 'y'] });
    const moved = await store.move(t, a.id, 'done');
    expect(moved).toMatchObject({ column: 'done', position: 0 });
    expect(moved!.updatedAt).toBeGreaterThanOrEqual(a.updatedAt);
    expect(await layout(t)).toEqual({ todo: ['c'], doing: ['x', 'b', 'y'], done: ['a'] });
  });

  it('deletes and closes the gap', async () => {
    const t = freshTenant();
    await add(t, 'a');
    const b = await add(t, 'b');
    await add(t, 'c');
    expect(await store.remove(t, b.id)).toMatchObject({ title: 'b' });
    expect(await layout(t)).toEqual({ todo: ['a', 'c'] });
    expect(await store.remove(t, b.id)).toBeNull();
  });

  it('updates only the fields given; null unassigns', async () => {
    const t = freshTenant();
    const a = await store.create(
      { tenantId: t, title: 'a', description: 'd', assignee: 'ann', column: 'todo' },
      1000,
    );
    expect(await store.update(t, a.id, {})).toEqual(a);
    const renamed = await store.update(t, a.id, { title: 'A' });
    expect(renamed).toMatchObject({ title: 'A', description: 'd', assignee: 'ann' });
    expect(await store.update(t, a.id, { assignee: null })).toMatchObject({ assignee: null });
    expect(await store.get(t, a.id)).toMatchObject({ title: 'A', assignee: null });
  });

  it("never reads, moves or deletes another tenant's card", async () => {
    const t = freshTenant();
    const other = freshTenant();
    const a = await add(t, 'a');
    expect(await store.get(other, a.id)).toBeNull();
    expect(await store.move(other, a.id, 'done')).toBeNull();
    expect(await store.update(other, a.id, { title: 'x' })).toBeNull();
    expect(await store.remove(other, a.id)).toBeNull();
    expect(await store.list(other)).toEqual([]);
    expect(await layout(t)).toEqual({ todo: ['a'] });
  });

  it('refuses a card beyond the limit', async () => {
    const t = freshTenant();
    const create = () =>
      store.create({ tenantId: t, title: 'x', description: '', assignee: null, column: 'todo' }, 2);
    await create();
    await create();
    await expect(create()).rejects.toBeInstanceOf(BoardFullError);
  });

  it('keeps positions contiguous under concurrent creates and moves', async () => {
    const t = freshTenant();
    const cards = await Promise.all(Array.from({ length: 12 }, (_, i) => add(t, `c${i}`)));
    const columns: BoardColumn[] = ['todo', 'doing', 'done'];
    await Promise.all(cards.map((card, i) => store.move(t, card.id, columns[i % 3], (i * 7) % 5)));
    const result = await layout(t); // asserts 0..n-1 in every column
    expect(Object.values(result).flat().sort()).toEqual(cards.map((c) => c.title).sort());
  });

  it('keeps the cards when the database is opened again', async () => {
    const t = freshTenant();
    const a = await add(t, 'kept');
    const again = new BoardDatabase(config as unknown as ConfigService<GatewayConfig, true>);
    await again.onModuleInit(); // nothing pending, no error
    try {
      expect(await new BoardCardStore(again).get(t, a.id)).toEqual(a);
    } finally {
      await again.onApplicationShutdown();
    }
  });
});
