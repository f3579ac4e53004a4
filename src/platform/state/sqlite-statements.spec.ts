import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryFailedError } from 'typeorm';
import { SqliteStatements } from './sqlite-statements.js';

describe('SqliteStatements', () => {
  let dir: string;
  let db: Database.Database;
  let statements: SqliteStatements;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-statements-'));
    db = new Database(join(dir, 'state.sqlite'));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL CHECK (v >= 0))');
    statements = new SqliteStatements(db);
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (k: string, v: number) =>
    statements.run('INSERT INTO t (k, v) VALUES (?, ?) RETURNING k, v', [k, v]);
  const count = () => db.prepare('SELECT count(*) AS n FROM t').get() as { n: number };
  const walFrames = () => (db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0].log;

  it('answers rows of statements that return rows, and changes of the others', async () => {
    await expect(insert('a', 1)).resolves.toMatchObject({ records: [{ k: 'a', v: 1 }] });
    const update = await statements.run('UPDATE t SET v = v + 1 WHERE k = ?', ['a']);
    expect(update.affected).toBe(1);
    const read = await statements.run('SELECT v FROM t WHERE k = ?', ['a']);
    expect(read.records).toEqual([{ v: 2 }]);
  });

  it('commits the writes asked for in one turn of the event loop together, each answered', async () => {
    db.pragma('wal_autocheckpoint = 0');
    const before = walFrames();
    await Promise.all(Array.from({ length: 20 }, (_, i) => insert(`k${i}`, i)));
    const grouped = walFrames() - before;
    expect(count().n).toBe(20);

    for (let i = 20; i < 40; i++) await insert(`k${i}`, i);
    const oneByOne = walFrames() - before - grouped;
    expect(count().n).toBe(40);
    // One commit appends the changed pages once; twenty append them twenty times.
    expect(grouped).toBeLessThan(oneByOne / 5);
  });

  it('fails only the statement that fails when its group rolls back', async () => {
    const results = await Promise.allSettled([
      insert('x', 1),
      insert('y', -1), // violates the CHECK
      insert('x', 2), // violates the primary key (x is written by the first)
      insert('z', 3),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(QueryFailedError);
    const rows = db.prepare('SELECT k, v FROM t ORDER BY k').all();
    expect(rows).toEqual([
      { k: 'x', v: 1 },
      { k: 'z', v: 3 },
    ]);
  });

  it('fails a whole group at once when the database is locked, without retrying each statement', async () => {
    const other = new Database(join(dir, 'state.sqlite'));
    db.pragma('busy_timeout = 50');
    other.exec('BEGIN IMMEDIATE'); // another process holds the write lock
    const results = await Promise.allSettled([insert('a', 1), insert('b', 2), insert('c', 3)]);
    other.exec('ROLLBACK');
    other.close();
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    const reason = (results[0] as PromiseRejectedResult).reason as QueryFailedError & {
      driverError: { code: string };
    };
    expect(reason.driverError.code).toMatch(/^SQLITE_BUSY/);
    // One attempt for the group (one error for all), not one busy wait per statement.
    const errors = results.map((r) => (r as PromiseRejectedResult).reason as typeof reason);
    expect(new Set(errors.map((e) => e.driverError)).size).toBe(1);
    await expect(insert('d', 4)).resolves.toMatchObject({ records: [{ k: 'd' }] });
  });

  it('keeps the order of statements: a read asked for after a write sees it', async () => {
    const write = insert('a', 7);
    const read = statements.run('SELECT v FROM t WHERE k = ?', ['a']);
    const [, seen] = await Promise.all([write, read]);
    expect(seen.records).toEqual([{ v: 7 }]);
  });

  it('answers a statement that does not compile as a QueryFailedError', async () => {
    await expect(statements.run('SELEC nonsense', [])).rejects.toBeInstanceOf(QueryFailedError);
    await expect(insert('still', 1)).resolves.toMatchObject({ records: [{ k: 'still' }] });
  });

  it('binds booleans as 0 and 1', async () => {
    await statements.run('INSERT INTO t (k, v) VALUES (?, ?)', ['b', true]);
    expect(db.prepare('SELECT v FROM t WHERE k = ?').get('b')).toEqual({ v: 1 });
  });
});
