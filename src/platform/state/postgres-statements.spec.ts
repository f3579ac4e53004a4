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

  it('keeps a connection usable after a group it prepared statements in failed', async () => {
    const one = new pg.Pool({ connectionString: database.dsn, max: 1, pipeline: true });
    try {
      const on = new PostgresStatements(one, names());
      const before = 'INSERT INTO t (k, v) VALUES ($1, $2) RETURNING k';
      const failing = 'INSERT INTO t (k, v) VALUES ($1, $2 - 1) RETURNING k';
      const after = 'UPDATE t SET v = v + $2 WHERE k = $1 RETURNING k';
      const group = (k: string, v: number) =>
        Promise.allSettled([
          on.run(before, [`${k}1`, v]),
          on.run(failing, [`${k}2`, v]),
          on.run(after, [`${k}1`, v]),
        ]);
      // All three are new to the connection; the second fails when it executes (v = -1), so the
      // server has prepared the first two and skipped the third before the group runs again.
      const failed = await group('a', 0);
      expect(failed.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
      ]);
      // Each again, in a group and alone: none is prepared twice or missing.
      const again = await group('b', 5);
      expect(again.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'fulfilled',
      ]);
      for (const sql of [before, failing]) await on.run(sql, [`c${sql.length}`, 3]);
      await on.run(after, ['b1', 1]);
      // A statement that does not parse fails alone too, and the connection goes on.
      const [bad, good] = await Promise.allSettled([
        on.run('INSERT INTO t (k, v) VALUES ($1, $2) RETURNING nonsense', ['d', 1]),
        on.run(before, ['d', 1]),
      ]);
      expect([bad.status, good.status]).toEqual(['rejected', 'fulfilled']);
      expect(await database.query('SELECT k, v FROM t ORDER BY k')).toEqual([
        { k: 'a1', v: 0 },
        { k: 'b1', v: 11 },
        { k: 'b2', v: 4 },
        { k: `c${before.length}`, v: 3 },
        { k: `c${failing.length}`, v: 2 },
        { k: 'd', v: 1 },
      ]);
    } finally {
      await one.end();
    }
  });

  it('stops the read timeout of a committed group, and fails a group that outlasts it', async () => {
    const timed = new pg.Pool({
      connectionString: database.dsn,
      max: 1,
      pipeline: true,
      query_timeout: 300,
      // No idle timer of the pool's own among the timers counted below.
      idleTimeoutMillis: 0,
    });
    const armedTimers = () =>
      process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    try {
      const on = new PostgresStatements(timed, names());
      const put = (k: string) => on.run('INSERT INTO t (k, v) VALUES ($1, 1) RETURNING k', [k]);
      await Promise.all([put('a0'), put('b0')]); // the client connected, the statement prepared
      const armed = armedTimers();
      await Promise.all([put('a'), put('b')]);
      // The client went back to the pool with no read timer left to fire (and close it).
      expect(armedTimers()).toBe(armed);
      await expect(Promise.all([put('c'), put('d')])).resolves.toHaveLength(2);
      const slow = await Promise.allSettled([
        put('e'),
        on.run('INSERT INTO t (k, v) SELECT $1, 1 FROM pg_sleep(1) RETURNING k', ['f']),
      ]);
      for (const outcome of slow) {
        expect(outcome.status).toBe('rejected');
        expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/timeout/i);
      }
      // The pool goes on with a client of its own.
      await expect(put('g')).resolves.toMatchObject({ records: [{ k: 'g' }] });
    } finally {
      await timed.end();
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
