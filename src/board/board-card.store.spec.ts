import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '../../test/support/postgres.js';
import { ReadinessChecks } from '../platform/health/readiness-checks.js';
import { BoardCardStore, BoardFullError, placement } from './board-card.store.js';
import type { BoardDatabase } from './board-database.js';
import type { BoardColumn } from './board.limits.js';
import { PostgresBoardDatabase } from './postgres-board.database.js';
import { SqliteBoardDatabase } from './sqlite-board.database.js';

type OpenedBoard = BoardDatabase & {
  onModuleInit(): Promise<void>;
  onApplicationShutdown(): Promise<void>;
};

/** Where a test's board lives: a sqlite file in a temp dir, or a fresh PostgreSQL database. */
interface BoardPlace {
  /** A new instance on it, as another replica (or a restarted process) would open it. */
  open(): OpenedBoard;
  cleanup(): Promise<void>;
}

async function boardPlace(backend: 'sqlite' | 'postgres'): Promise<BoardPlace> {
  if (backend === 'postgres') {
    const database = await createTestDatabase();
    return {
      open: () =>
        new PostgresBoardDatabase(
          { backend: 'postgres', dsn: database.dsn, queryTimeoutMs: 10_000 },
          new ReadinessChecks(),
        ),
      cleanup: () => database.drop(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-board-spec-'));
  return {
    open: () => new SqliteBoardDatabase(join(dir, 'nested', 'board.sqlite')),
    cleanup: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

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

/** A real database of each kind: the renumbering is SQL, so it is tested against the database. */
describe.each(['sqlite', 'postgres'] as const)('BoardCardStore (%s)', (backend) => {
  let place: BoardPlace;
  let database: OpenedBoard;
  let store: BoardCardStore;
  let tenant = 0;

  beforeAll(async () => {
    Logger.overrideLogger(false); // "applied board migrations" is not news here
    place = await boardPlace(backend);
    database = place.open();
    store = new BoardCardStore(database);
    await database.onModuleInit();
  });
  afterAll(async () => {
    await database?.onApplicationShutdown();
    await place?.cleanup();
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

  // PostgreSQL only: a sqlite board is one replica's, and two connections to one file in one
  // thread would block each other synchronously (better-sqlite3) rather than interleave.
  const sharedIt = backend === 'postgres' ? it : () => undefined;
  sharedIt(
    'keeps positions contiguous when two instances (replicas) change one board at once',
    async () => {
      const t = freshTenant();
      const other = place.open();
      await other.onModuleInit();
      try {
        const stores = [store, new BoardCardStore(other)];
        const cards = await Promise.all(
          Array.from({ length: 16 }, (_, i) =>
            stores[i % 2].create(
              { tenantId: t, title: `c${i}`, description: '', assignee: null, column: 'todo' },
              1000,
            ),
          ),
        );
        const columns: BoardColumn[] = ['todo', 'doing', 'done'];
        await Promise.all(
          Array.from({ length: 48 }, (_, i) =>
            stores[i % 2].move(t, cards[(i * 5) % 16].id, columns[i % 3], (i * 7) % 6),
          ),
        );
        const result = await layout(t); // asserts 0..n-1 in every column
        expect(Object.values(result).flat().sort()).toEqual(cards.map((c) => c.title).sort());
      } finally {
        await other.onApplicationShutdown();
      }
    },
  );

  it('keeps the cards when the database is opened again', async () => {
    const t = freshTenant();
    const a = await add(t, 'kept');
    const again = place.open();
    await again.onModuleInit(); // nothing pending, no error
    try {
      expect(await new BoardCardStore(again).get(t, a.id)).toEqual(a);
    } finally {
      await again.onApplicationShutdown();
    }
  });
});
