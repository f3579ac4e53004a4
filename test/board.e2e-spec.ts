import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { AuditSink } from '../src/platform/audit/audit-sink.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway, tempBoardDb } from './support/gateway.js';
import { sha256Hex, writeKeysFile } from './support/keys-file.js';
import { connectMcp } from './support/mcp-client.js';
import { gatewayForSuite } from './support/suite.js';

const ROOT_KEY = 'board-test-root-key';
const KEY_A = 'board-tenant-a-operator-key';
const KEY_B = 'board-tenant-b-runner-key';
const KEY_A_VIEWER = 'board-tenant-a-viewer-key';
const KEY_A_READER = 'board-tenant-a-reader-key';

const ENV = {
  SVC_API_KEY: ROOT_KEY,
  SVC_KEYS_FILE: writeKeysFile({
    keys: [
      { id: 'a-ops', key_sha256: sha256Hex(KEY_A), tenant_id: 'a', roles: ['operator'] },
      { id: 'b-run', key_sha256: sha256Hex(KEY_B), tenant_id: 'b', roles: ['runner'] },
      { id: 'a-view', key: KEY_A_VIEWER, tenant_id: 'a', roles: ['viewer'] },
      { id: 'a-read', key: KEY_A_READER, tenant_id: 'a', roles: ['board-reader'] },
    ],
    roles: { 'board-reader': ['board:read'] },
  }),
};
const as = (key: string) => ({ Authorization: `Bearer ${key}` });

interface Card {
  id: string;
  tenant_id: string;
  title: string;
  description: string;
  column: string;
  position: number;
  assignee: string | null;
  created_at: string;
  updated_at: string;
}
interface Board {
  tenant_id: string;
  columns: Array<{ name: string; cards: Card[] }>;
}

/** `{todo: [titles], doing: [...], done: [...]}`, checking each card's position is its index. */
function layout(board: Board): Record<string, string[]> {
  return Object.fromEntries(
    board.columns.map(({ name, cards }) => {
      cards.forEach((card, index) => expect(card).toMatchObject({ column: name, position: index }));
      return [name, cards.map((card) => card.title)];
    }),
  );
}

function expectProblem(res: request.Response, status: number, slug: string): void {
  expect({ status: res.status, type: res.body.type }).toEqual({
    status,
    type: `urn:svc:problem:${slug}`,
  });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

/**
 * The board where each backend puts it by default: a sqlite file of its own beside sqlite state;
 * the state database itself on PostgreSQL (an empty SVC_BOARD_DB is unset: the default).
 */
describe.each(BACKENDS)('Kanban board (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, () => ({
    ...ENV,
    SVC_BOARD_DB: backend === 'postgres' ? '' : tempBoardDb(),
  }));
  const http = () => request(gateway.url);
  const board = async (tenant = 'a', key = KEY_A): Promise<Board> =>
    (await http().get(`/v1/board?tenant_id=${tenant}`).set(as(key)).expect(200)).body as Board;
  const create = (body: Record<string, unknown>, key = KEY_A) =>
    http()
      .post('/v1/board/cards')
      .set(as(key))
      .send({ tenant_id: 'a', ...body });
  const move = (id: string, body: Record<string, unknown>, key = KEY_A) =>
    http()
      .post(`/v1/board/cards/${id}/move`)
      .set(as(key))
      .send({ tenant_id: 'a', ...body });

  it('starts with the columns todo, doing and done, empty', async () => {
    expect(await board('fresh', ROOT_KEY)).toEqual({
      tenant_id: 'fresh',
      columns: [
        { name: 'todo', cards: [] },
        { name: 'doing', cards: [] },
        { name: 'done', cards: [] },
      ],
    });
  });

  it('creates, updates, moves and deletes cards, renumbering positions', async () => {
    const created = await create({ title: 'Write spec', description: 'all of it' }).expect(201);
    const card = created.body as Card;
    expect(card).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenant_id: 'a',
      title: 'Write spec',
      description: 'all of it',
      column: 'todo',
      position: 0,
      assignee: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: card.created_at,
    });
    const second = (await create({ title: 'Review', assignee: 'bob' }).expect(201)).body as Card;
    const first = (await create({ title: 'Plan', position: 0 }).expect(201)).body as Card;
    await create({ title: 'Ship', column: 'doing' }).expect(201);
    expect(layout(await board())).toEqual({
      todo: ['Plan', 'Write spec', 'Review'],
      doing: ['Ship'],
      done: [],
    });

    const updated = await http()
      .patch(`/v1/board/cards/${second.id}`)
      .set(as(KEY_A))
      .send({ tenant_id: 'a', title: 'Review it', assignee: null });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ title: 'Review it', assignee: null, position: 2 });
    const got = await http().get(`/v1/board/cards/${second.id}?tenant_id=a`).set(as(KEY_A));
    expect(got.body).toEqual(updated.body);

    const moved = await move(card.id, { column: 'doing', position: 0 }).expect(200);
    expect(moved.body).toMatchObject({ id: card.id, column: 'doing', position: 0 });
    await move(first.id, { column: 'todo', position: 5 }).expect(200); // past the end: last
    expect(layout(await board())).toEqual({
      todo: ['Review it', 'Plan'],
      doing: ['Write spec', 'Ship'],
      done: [],
    });

    const deleted = await http()
      .delete(`/v1/board/cards/${card.id}?tenant_id=a`)
      .set(as(KEY_A))
      .expect(200);
    expect(deleted.body).toEqual({ tenant_id: 'a', id: card.id, deleted: true });
    expect(layout(await board()).doing).toEqual(['Ship']);
    expectProblem(
      await http().get(`/v1/board/cards/${card.id}?tenant_id=a`).set(as(KEY_A)),
      404,
      'card-not-found',
    );

    const audit = await gateway.app.get(AuditSink).list({ tenantId: 'a', kind: 'board.changed' });
    expect(audit[0]).toMatchObject({
      actor: 'a-ops',
      details: { action: 'deleted', card: card.id },
    });
  });

  it('answers 400 for invalid fields and an unknown column, 404 for an unknown card', async () => {
    const unknownColumn = await create({ title: 'x', column: 'backlog' });
    expectProblem(unknownColumn, 400, 'validation');
    expect(unknownColumn.body.errors).toEqual([
      { path: 'column', message: 'column must be one of todo, doing, done' },
    ]);
    const card = (await create({ title: 'Valid' }).expect(201)).body as Card;
    expectProblem(await move(card.id, { column: 'archive' }), 400, 'validation');
    expectProblem(await move(card.id, { column: 'done', position: -1 }), 400, 'validation');

    const invalid = await create({ title: ' ', description: 'x'.repeat(10_001), color: 'red' });
    expectProblem(invalid, 400, 'validation');
    const paths = (invalid.body.errors as Array<{ path: string }>).map((e) => e.path);
    expect(paths.sort()).toEqual(['color', 'description', 'title']);
    expectProblem(await create({ title: 'x'.repeat(201) }), 400, 'validation');
    expectProblem(
      await http().post('/v1/board/cards').set(as(ROOT_KEY)).send({ title: 'no tenant' }),
      400,
      'validation',
    );
    expectProblem(
      await http()
        .patch(`/v1/board/cards/${card.id}`)
        .set(as(KEY_A))
        .send({ tenant_id: 'a', title: null }),
      400,
      'validation',
    );
    // Moving is its own route; PATCH does not take a column.
    expectProblem(
      await http()
        .patch(`/v1/board/cards/${card.id}`)
        .set(as(KEY_A))
        .send({ tenant_id: 'a', column: 'done' }),
      400,
      'validation',
    );

    const missing = '00000000-0000-4000-8000-000000000000';
    expectProblem(await move(missing, { column: 'done' }), 404, 'card-not-found');
    expectProblem(
      await http().patch(`/v1/board/cards/${missing}`).set(as(KEY_A)).send({ tenant_id: 'a' }),
      404,
      'card-not-found',
    );
    expectProblem(
      await http().delete('/v1/board/cards/not-a-uuid?tenant_id=a').set(as(KEY_A)),
      404,
      'card-not-found',
    );
  });

  it('keeps tenants apart', async () => {
    const card = (await create({ title: 'Only for a' }).expect(201)).body as Card;
    // b's key cannot name tenant a…
    await http().get('/v1/board?tenant_id=a').set(as(KEY_B)).expect(403);
    expect((await move(card.id, { column: 'done' }, KEY_B)).status).toBe(403);
    // …and naming its own tenant, a's card does not exist.
    expect(layout(await board('b', KEY_B))).toEqual({ todo: [], doing: [], done: [] });
    const other = await http()
      .post(`/v1/board/cards/${card.id}/move`)
      .set(as(KEY_B))
      .send({ tenant_id: 'b', column: 'done' });
    expectProblem(other, 404, 'card-not-found');
    expectProblem(
      await http().delete(`/v1/board/cards/${card.id}?tenant_id=b`).set(as(ROOT_KEY)),
      404,
      'card-not-found',
    );
    expect((await board()).columns[0].cards.map((c) => c.id)).toContain(card.id);
  });

  it('needs board:read to read (viewers have it) and board:write to change', async () => {
    const card = (await create({ title: 'Guarded' }).expect(201)).body as Card;
    // The viewer role reads the board (its tenant's) and changes nothing.
    await http().get('/v1/board?tenant_id=a').set(as(KEY_A_VIEWER)).expect(200);
    await http().get('/v1/board?tenant_id=b').set(as(KEY_A_VIEWER)).expect(403);
    expect((await move(card.id, { column: 'done' }, KEY_A_VIEWER)).status).toBe(403);
    await http().get('/v1/board?tenant_id=a').set(as(KEY_A_READER)).expect(200);
    expect((await create({ title: 'no' }, KEY_A_VIEWER)).status).toBe(403);
    expect((await create({ title: 'no' }, KEY_A_READER)).status).toBe(403);
    expect((await move(card.id, { column: 'done' }, KEY_A_READER)).status).toBe(403);
    const patch = await http()
      .patch(`/v1/board/cards/${card.id}`)
      .set(as(KEY_A_READER))
      .send({ tenant_id: 'a', title: 'no' });
    expectProblem(patch, 403, 'forbidden');
    await http().delete(`/v1/board/cards/${card.id}?tenant_id=a`).set(as(KEY_A_READER)).expect(403);
    await http().get('/v1/board?tenant_id=a').expect(401);
  });

  it('offers the built-in toolset board to every tenant; its tools cannot be replaced', async () => {
    const list = await http().get('/v1/toolsets?tenant_id=fresh').set(as(ROOT_KEY)).expect(200);
    expect(list.body.toolsets).toEqual([
      { toolset: 'agents', version: 0, tools: 1 },
      { toolset: 'board', version: 0, tools: 5 },
      { toolset: 'default', version: 0, tools: 3 },
    ]);
    const view = await http().get('/v1/toolsets/board?tenant_id=fresh').set(as(ROOT_KEY));
    expect(view.status).toBe(200);
    expect((view.body.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual([
      'board_list',
      'board_create_card',
      'board_move_card',
      'board_update_card',
      'board_delete_card',
    ]);
    expect(view.body.tools[1]).toMatchObject({
      builtin: true,
      parameters: { type: 'object', required: ['title'] },
    });
    const replace = await http()
      .put('/v1/toolsets/board/tools/board_create_card')
      .set(as(KEY_A))
      .send({
        tenant_id: 'a',
        description: 'mine',
        parameters: { type: 'object' },
        endpoint: { url: 'http://127.0.0.1:9/x' },
      });
    expectProblem(replace, 409, 'builtin-tool');
    expectProblem(
      await http().delete('/v1/toolsets/board/tools/board_list?tenant_id=a').set(as(KEY_A)),
      409,
      'builtin-tool',
    );
  });

  it('runs the board tools through POST /v1/tools/board/{name}', async () => {
    const call = (name: string, args: Record<string, unknown>) =>
      http()
        .post(`/v1/tools/board/${name}`)
        .set(as(KEY_B))
        .send({ tenant_id: 'b', arguments: args });
    const created = await call('board_create_card', { title: 'By tool', column: 'done' });
    expect(created.body).toMatchObject({
      tool: 'board_create_card',
      toolset: 'board',
      version: 0,
      is_error: false,
      result: { tenant_id: 'b', title: 'By tool', column: 'done', position: 0 },
    });
    const listed = await call('board_list', {}).expect(200);
    expect(layout(listed.body.result as Board).done).toEqual(['By tool']);
    // An unknown card is a tool-level error the model can read; bad arguments are 422.
    const missing = await call('board_delete_card', { id: 'nope' }).expect(200);
    expect(missing.body).toMatchObject({
      is_error: true,
      result: expect.stringMatching(/no card/),
    });
    expectProblem(
      await call('board_move_card', { id: created.body.result.id, column: 'later' }),
      422,
      'invalid-arguments',
    );
  });

  it('an echo agent run creates a card, MCP tools/call moves it', async () => {
    const run = await http()
      .post('/v1/agent/run')
      .set(as(KEY_A))
      .send({
        tenant_id: 'a',
        toolset: 'board',
        prompt: '/tool board_create_card {"title":"Agent card","assignee":"agent"}',
      })
      .expect(200);
    expect(run.body).toMatchObject({ status: 'completed', tool_calls: 1, turns: 2 });
    expect(run.body.text).toContain('board_create_card →');
    const card = (await board()).columns[0].cards.find((c) => c.title === 'Agent card');
    expect(card).toMatchObject({ column: 'todo', assignee: 'agent' });

    const mcp = await connectMcp(`${gateway.url}/mcp/`, { ...as(KEY_A), 'X-Toolset': 'board' });
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.find((tool) => tool.name === 'board_delete_card')?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
      });
      const result = await mcp.client.callTool({
        name: 'board_move_card',
        arguments: { id: card!.id, column: 'done', position: 0 },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ id: card!.id, column: 'done', position: 0 });
      const missing = await mcp.client.callTool({
        name: 'board_move_card',
        arguments: { id: 'no-such-card', column: 'done' },
      });
      expect(missing.isError).toBe(true);
      // Arguments that fail the schema are a result the model can read (SEP-1303).
      const invalid = await mcp.client.callTool({
        name: 'board_move_card',
        arguments: { id: card!.id },
      });
      expect(invalid.isError).toBe(true);
      expect(JSON.stringify(invalid.content)).toContain('column');
    } finally {
      await mcp.close();
    }
    const done = (await board()).columns.find((column) => column.name === 'done');
    expect(done?.cards[0]).toMatchObject({ id: card!.id, position: 0 });
  });
});

describe('the board database', () => {
  let fixture: BackendFixture;
  let gateway: RunningGateway | undefined;
  beforeAll(async () => {
    fixture = await createBackend('sqlite');
  });
  afterAll(async () => {
    await gateway?.close();
    await fixture?.cleanup();
  });

  it('keeps the cards across a restart', async () => {
    const env = { ...fixture.env, ...ENV, SVC_BOARD_DB: tempBoardDb() };
    gateway = await startGateway(env);
    const created = await request(gateway.url)
      .post('/v1/board/cards')
      .set(as(KEY_A))
      .send({ tenant_id: 'a', title: 'Survivor', column: 'doing' })
      .expect(201);
    await gateway.close();

    gateway = await startGateway(env);
    const res = await request(gateway.url).get('/v1/board?tenant_id=a').set(as(KEY_A)).expect(200);
    expect(layout(res.body as Board)).toEqual({ todo: [], doing: ['Survivor'], done: [] });
    expect((res.body as Board).columns[1].cards[0]).toEqual(created.body);
  });

  it('stops the start with a configuration error when the file cannot be opened', async () => {
    const file = tempBoardDb();
    writeFileSync(file, 'a file where the board wants a directory');
    await expect(
      startGateway({ ...fixture.env, SVC_BOARD_DB: join(file, 'board.sqlite') }),
    ).rejects.toThrow(/^SVC_BOARD_DB ".*board\.sqlite" cannot be opened: /);
  });
});
