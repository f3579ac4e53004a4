import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { QueryFailedError } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import { PostgresStatements } from './postgres-statements.js';
import { StatementNames } from './statement-names.js';

// Every case with the statements prepared (StatementNames, the default) and unnamed.
describe.each([
  ['prepared', () => new StatementNames()],
  ['unnamed', () => undefined],
])('PostgresStatements (%s)', (_how, names) => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let statements: PostgresStatements;
  let checkouts: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    await database.query('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL CHECK (v >= 0))');
    pool = new pg.Pool({ connectionString: database.dsn, max: 4, pipeline: true });
    pool.on('acquire', () => (checkouts += 1));
    statements = new PostgresStatements(pool, names());
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  beforeEach(async () => {
    await database.query('TRUNCATE t');
    checkouts = 0;
  });

  const insert = (k: string, v: number) =>
    statements.run('INSERT INTO t (k, v) VALUES ($1, $2) RETURNING k, v', [k, v]);

  it('answers rows of statements that return rows, and the row count of the others', async () => {
    await expect(insert('a', 1)).resolves.toMatchObject({ records: [{ k: 'a', v: 1 }] });
    const update = await statements.run('UPDATE t SET v = v + 1 WHERE k = $1', ['a']);
    expect(update.affected).toBe(1);
    const read = await statements.run('SELECT v FROM t WHERE k = $1', ['a']);
    expect(read.records).toEqual([{ v: 2 }]);
  });

  it('sends the statements asked for in one turn on one client, each answered, in order', async () => {
    const answers = await Promise.all([
      insert('a', 1),
      statements.run('UPDATE t SET v = v + 10 WHERE k = $1', ['a']),
      statements.run('SELECT v FROM t WHERE k = $1', ['a']),
      ...Array.from({ length: 20 }, (_, i) => insert(`k${i}`, i)),
    ]);
    expect(checkouts).toBe(1);
    expect(answers[1].affected).toBe(1);
    // Asked for after the insert and the update, so it sees both.
    expect(answers[2].records).toEqual([{ v: 11 }]);
    expect(answers.slice(3).map((answer) => (answer.records[0] as { k: string }).k)).toEqual(
      Array.from({ length: 20 }, (_, i) => `k${i}`),
    );

    for (let i = 0; i < 3; i++) await insert(`one${i}`, i);
    expect(checkouts).toBe(4);
  });

  it('fails only the statement that fails; the rest of its group is committed (one by one, after the transaction rolled back)', async () => {
    const [first, bad, duplicate, last] = await Promise.allSettled([
      insert('a', 1),
      insert('b', -1),
      insert('a', 2),
      insert('c', 3),
    ]);
    expect(first.status).toBe('fulfilled');
    expect(last.status).toBe('fulfilled');
    for (const failure of [bad, duplicate]) {
      expect(failure.status).toBe('rejected');
      expect((failure as PromiseRejectedResult).reason).toBeInstanceOf(QueryFailedError);
    }
    expect((duplicate as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
    const rows = await database.query('SELECT k, v FROM t ORDER BY k');
    expect(rows).toEqual([
      { k: 'a', v: 1 },
      { k: 'c', v: 3 },
    ]);
    // The client went back to the pool usable.
    await expect(insert('d', 4)).resolves.toMatchObject({ records: [{ k: 'd', v: 4 }] });
  });

  /** The id of the transaction a statement of the group ran in (`RETURNING` it). */
  const insertInTransaction = (k: string, v: number) =>
    statements.run('INSERT INTO t (k, v) VALUES ($1, $2) RETURNING xmin::text AS tx', [k, v]);
  const txOf = (answer: { records: unknown[] }) => (answer.records[0] as { tx: string }).tx;

  it('commits a group of two writes or more once: its statements share one transaction', async () => {
    const group = await Promise.all([
      insertInTransaction('a', 1),
      statements.run('UPDATE t SET v = v + 1 WHERE k = $1 RETURNING xmin::text AS tx', ['a']),
      insertInTransaction('b', 2),
    ]);
    expect(checkouts).toBe(1);
    expect(new Set(group.map(txOf)).size).toBe(1);
    // Statements asked for one by one are a transaction each.
    const apart = [await insertInTransaction('c', 3), await insertInTransaction('d', 4)];
    expect(txOf(apart[0])).not.toBe(txOf(apart[1]));
    expect(txOf(apart[0])).not.toBe(txOf(group[0]));
  });

  it('sends a group with fewer than two writes without a transaction', async () => {
    const [, inside] = await Promise.all([
      insert('a', 1),
      // Inside a transaction this would be the insert's transaction id.
      statements.run('SELECT pg_current_xact_id_if_assigned()::text AS tx', []),
    ]);
    expect(inside.records).toEqual([{ tx: null }]);
  });

  it('answers a statement of a transaction once the group is committed, for every client to see', async () => {
    const seenByOthers: unknown[] = [];
    await Promise.all([
      // Another connection reads the table the moment the first statement is answered.
      insert('a', 1).then(async () =>
        seenByOthers.push(...(await database.query('SELECT k FROM t ORDER BY k'))),
      ),
      insert('b', 2),
      insert('c', 3),
    ]);
    expect(seenByOthers).toEqual([{ k: 'a' }, { k: 'b' }, { k: 'c' }]);
  });

  it('fails every statement of a transaction whose connection is lost, and drops that client', async () => {
    const outcomes = await Promise.allSettled([
      insert('a', 1),
      insert('b', 2),
      statements.run('SELECT pg_terminate_backend(pg_backend_pid())', []),
    ]);
    for (const outcome of outcomes) expect(outcome.status).toBe('rejected');
    // Not committed, and the pool goes on with a client of its own.
    expect(await database.query('SELECT k FROM t')).toEqual([]);
    await expect(insert('c', 3)).resolves.toMatchObject({ records: [{ k: 'c', v: 3 }] });
  });

  it('prepares a named statement once per connection, also when a group sends it twice at once', async () => {
    const one = new pg.Pool({ connectionString: database.dsn, max: 1, pipeline: true });
    try {
      const on = new PostgresStatements(one, names());
      await Promise.all(
        [0, 1, 2].map((i) => on.run('UPDATE t SET v = v + 1 WHERE k = $1', [`${i}`])),
      );
      await on.run('UPDATE t SET v = v + 1 WHERE k = $1', ['x']);
      const prepared = await on.run(
        `SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'UPDATE t %'`,
        [],
      );
      expect(prepared.records).toHaveLength(names() ? 1 : 0);
    } finally {
      await one.end();
    }
  });

  it('rejects every statement of a group with the error of a pool that cannot connect', async () => {
    const closed = new pg.Pool({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
      connectionTimeoutMillis: 2_000,
    });
    const unreachable = new PostgresStatements(closed);
    const outcomes = await Promise.allSettled([
      unreachable.run('SELECT 1', []),
      unreachable.run('SELECT 2', []),
    ]);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: 'ECONNREFUSED' });
    }
    await closed.end();
  });
});
