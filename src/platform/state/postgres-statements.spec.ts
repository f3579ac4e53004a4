import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { QueryFailedError } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import { PostgresStatements } from './postgres-statements.js';

describe('PostgresStatements', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let statements: PostgresStatements;
  let checkouts: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    await database.query('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL CHECK (v >= 0))');
    pool = new pg.Pool({ connectionString: database.dsn, max: 4, pipeline: true });
    pool.on('acquire', () => (checkouts += 1));
    statements = new PostgresStatements(pool);
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

  it('fails only the statement that fails; the rest of its group is committed', async () => {
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
