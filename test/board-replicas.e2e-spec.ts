import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { boardMigrations } from '../migrations/board/index.js';
import { stateMigrations } from '../migrations/index.js';
import { BOARD_MIGRATIONS_TABLE } from '../src/board/board-data-source.js';
import { type BackendFixture, createBackend } from './support/backends.js';
import { collect, spawnSvc, waitReady } from './support/cli.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { freePort } from './support/net.js';
import { createTestDatabase } from './support/postgres.js';

const KEY = 'board-replicas-root-key';
const auth = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';
/** An empty SVC_BOARD_DB is unset: the board goes into the state database, the default. */
const DEFAULT_BOARD = { SVC_BOARD_DB: '' };

interface Card {
  id: string;
  title: string;
  column: string;
  position: number;
}
interface Board {
  columns: Array<{ name: string; cards: Card[] }>;
}

/** Titles per column, checking every card's position is its index (0..n-1, no gap, no duplicate). */
function layout(board: Board): Record<string, string[]> {
  return Object.fromEntries(
    board.columns.map(({ name, cards }) => {
      cards.forEach((card, index) => expect(card).toMatchObject({ column: name, position: index }));
      return [name, cards.map((card) => card.title)];
    }),
  );
}

describe('the board on PostgreSQL, shared by two replicas', () => {
  let fixture: BackendFixture;
  let a: RunningGateway;
  let b: RunningGateway;

  beforeAll(async () => {
    fixture = await createBackend('postgres');
    const env = { ...fixture.env, ...DEFAULT_BOARD, SVC_API_KEY: KEY };
    [a, b] = await Promise.all([startGateway(env), startGateway(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await fixture?.cleanup();
  });

  const board = async (gateway: RunningGateway, tenant = TENANT): Promise<Board> =>
    (await request(gateway.url).get(`/v1/board?tenant_id=${tenant}`).set(auth).expect(200))
      .body as Board;
  const tool = (gateway: RunningGateway, name: string, args: Record<string, unknown>) =>
    request(gateway.url)
      .post(`/v1/tools/board/${name}`)
      .set(auth)
      .send({ tenant_id: TENANT, arguments: args })
      .expect(200);

  it('shows a card created through one replica through the other', async () => {
    const created = await request(a.url)
      .post('/v1/board/cards')
      .set(auth)
      .send({ tenant_id: TENANT, title: 'Made on A', column: 'doing' })
      .expect(201);
    const card = created.body as Card;
    expect((await board(b)).columns[1].cards).toEqual([created.body]);

    const renamed = await request(b.url)
      .patch(`/v1/board/cards/${card.id}`)
      .set(auth)
      .send({ tenant_id: TENANT, title: 'Renamed on B' })
      .expect(200);
    const read = await request(a.url)
      .get(`/v1/board/cards/${card.id}?tenant_id=${TENANT}`)
      .set(auth)
      .expect(200);
    expect(read.body).toEqual(renamed.body);

    await request(b.url)
      .delete(`/v1/board/cards/${card.id}?tenant_id=${TENANT}`)
      .set(auth)
      .expect(200);
    await request(a.url)
      .get(`/v1/board/cards/${card.id}?tenant_id=${TENANT}`)
      .set(auth)
      .expect(404);
  });

  it('runs the board tools on either replica against the same board', async () => {
    const created = await tool(a, 'board_create_card', { title: 'By tool on A', column: 'done' });
    expect(created.body).toMatchObject({ toolset: 'board', is_error: false });
    const id = (created.body.result as Card).id;

    const listed = await tool(b, 'board_list', {});
    expect(layout(listed.body.result as Board).done).toEqual(['By tool on A']);
    const moved = await tool(b, 'board_move_card', { id, column: 'todo', position: 0 });
    expect(moved.body.result).toMatchObject({ id, column: 'todo', position: 0 });
    expect(layout((await tool(a, 'board_list', {})).body.result as Board)).toMatchObject({
      todo: ['By tool on A'],
      done: [],
    });
    await tool(a, 'board_delete_card', { id });
  });

  it('keeps positions 0..n-1 and every card when both replicas move cards at once', async () => {
    const tenant = 'race';
    const create = (gateway: RunningGateway, i: number) =>
      request(gateway.url)
        .post('/v1/board/cards')
        .set(auth)
        .send({ tenant_id: tenant, title: `card-${i}`, position: i % 3 })
        .expect(201);
    const cards = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create(i % 2 ? b : a, i)),
    ).then((responses) => responses.map((res) => res.body as Card));

    const columns = ['todo', 'doing', 'done'];
    const moves = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        request((i % 2 ? b : a).url)
          .post(`/v1/board/cards/${cards[(i * 7) % 20].id}/move`)
          .set(auth)
          .send({ tenant_id: tenant, column: columns[i % 3], position: (i * 5) % 8 }),
      ),
    );
    expect(moves.map((res) => res.status)).toEqual(moves.map(() => 200));

    for (const gateway of [a, b]) {
      const result = layout(await board(gateway, tenant)); // asserts the positions
      expect(Object.values(result).flat().sort()).toEqual(cards.map((card) => card.title).sort());
    }
  });

  it('reports the board database in /readyz on both replicas', async () => {
    for (const gateway of [a, b]) {
      const res = await request(gateway.url).get('/readyz').expect(200);
      expect(res.body).toEqual({
        status: 'ready',
        backend: 'postgres',
        migrations: { applied: stateMigrations.length, pending: [] },
        board: {
          backend: 'postgres',
          migrations: { applied: boardMigrations.length, pending: [] },
        },
      });
    }
  });

  it('keeps its tables in the state database, with a migrations table of its own', async () => {
    const applied = await fixture.database!.query<{ name: string }>(
      `SELECT name FROM ${BOARD_MIGRATIONS_TABLE}`,
    );
    expect(applied.map((row) => row.name)).toEqual(boardMigrations.map((m) => new m().name));
    const tables = await fixture.database!.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_name LIKE 'board%' ORDER BY 1`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(['board_cards', BOARD_MIGRATIONS_TABLE]);
  });
});

describe('two svc processes starting at once on a fresh PostgreSQL database', () => {
  it('migrate the board once, and both serve it', async () => {
    const database = await createTestDatabase();
    const ports = [await freePort(), await freePort()];
    const env = {
      SVC_STATE_BACKEND: 'postgres',
      SVC_STATE_DSN: database.dsn,
      ...DEFAULT_BOARD,
      SVC_API_KEY: KEY,
    };
    const children = ports.map((port) => spawnSvc(['serve', '--port', String(port)], env));
    const results = children.map((child) => collect(child, 60_000));
    try {
      const urls = ports.map((port) => `http://127.0.0.1:${port}`);
      await Promise.all(urls.map((url) => waitReady(url, 30_000)));
      for (const url of urls) {
        const ready = await request(url).get('/readyz').expect(200);
        expect(ready.body.board).toEqual({
          backend: 'postgres',
          migrations: { applied: boardMigrations.length, pending: [] },
        });
      }
      const applied = await database.query<{ name: string }>(
        `SELECT name FROM ${BOARD_MIGRATIONS_TABLE}`,
      );
      expect(applied.map((row) => row.name)).toEqual(boardMigrations.map((m) => new m().name));

      const created = await request(urls[0])
        .post('/v1/board/cards')
        .set(auth)
        .send({ tenant_id: TENANT, title: 'Across processes' })
        .expect(201);
      const seen = await request(urls[1]).get(`/v1/board?tenant_id=${TENANT}`).set(auth);
      expect((seen.body as Board).columns[0].cards).toEqual([created.body]);
    } finally {
      for (const child of children) child.kill('SIGTERM');
      const ended = await Promise.all(results);
      await database.drop();
      // Neither failed to start (a lost migration race would exit non-zero before SIGTERM).
      expect(ended.map((result) => result.code)).toEqual([0, 0]);
    }
  });
});
