import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { QueryFailedError } from 'typeorm';
import { StateConflictError, StateUnavailableError } from './state-store.js';
import { classifyStateError } from './state-unavailable.js';

/** What node-postgres raises for a server error with this SQLSTATE. */
function pgError(code: string, message: string): pg.DatabaseError {
  const error = new pg.DatabaseError(message, 0, 'error');
  error.code = code;
  return error;
}

/** TypeORM wraps every failed query this way (and copies the driver error's fields). */
const failedQuery = (driverError: Error) => new QueryFailedError('SELECT 1', [], driverError);

/** The error a real pg client gets from a port that nobody listens on. */
async function refusedConnection(): Promise<Error> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'nobody' });
  return client.connect().then(
    () => new Error('connected to a closed port'),
    (error: Error) => error,
  );
}

describe('classifyStateError', () => {
  const unavailable = (error: unknown) => classifyStateError(error, 'postgres');

  it.each([
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ],
    ['a reset connection', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a connect timeout', Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' })],
    ['a cut connection mid-query', failedQuery(new Error('Connection terminated unexpectedly'))],
    ['a pg connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a pool that found no free client', new Error('timeout exceeded when trying to connect')],
    [
      'a client broken earlier',
      failedQuery(new Error('Client has encountered a connection error and is not queryable')),
    ],
    [
      'admin shutdown (57P01)',
      failedQuery(pgError('57P01', 'terminating connection due to administrator command')),
    ],
    [
      'crash shutdown (57P02)',
      failedQuery(pgError('57P02', 'terminating connection because of crash')),
    ],
    ['a server starting up (57P03)', pgError('57P03', 'the database system is starting up')],
    ['a connection failure (08006)', failedQuery(pgError('08006', 'connection failure'))],
    ['a refused connection (08001)', pgError('08001', 'could not connect')],
    ['too many connections (53300)', pgError('53300', 'sorry, too many clients already')],
    [
      'every address refused (AggregateError)',
      new AggregateError([
        Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' }),
      ]),
    ],
    ['sqlite busy past the timeout', new Database.SqliteError('database is locked', 'SQLITE_BUSY')],
    ['a sqlite disk error', new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE')],
    ['a full sqlite disk', new Database.SqliteError('database or disk is full', 'SQLITE_FULL')],
  ])('%s is StateUnavailableError, keeping the driver error as its cause', (_, error) => {
    const classified = unavailable(error);
    expect(classified).toBeInstanceOf(StateUnavailableError);
    expect((classified as Error).message).toBe(
      'the state backend (postgres) cannot be reached; retry later',
    );
    expect((classified as Error).cause).toBe(error);
  });

  it('recognises what a real pg client gets from a closed port', async () => {
    const error = await refusedConnection();
    expect(unavailable(error)).toBeInstanceOf(StateUnavailableError);
    expect(unavailable(failedQuery(error))).toBeInstanceOf(StateUnavailableError);
  });

  it.each([
    ['a unique violation (23505)', failedQuery(pgError('23505', 'duplicate key value'))],
    ['an undefined table (42P01)', failedQuery(pgError('42P01', 'relation "x" does not exist'))],
    ['a serialization failure (40001)', pgError('40001', 'could not serialize access')],
    ['a syntax error', failedQuery(pgError('42601', 'syntax error at or near "SELEC"'))],
    [
      'a sqlite constraint',
      new Database.SqliteError('UNIQUE constraint failed', 'SQLITE_CONSTRAINT_PRIMARYKEY'),
    ],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'value')")],
    ['a lost write', new StateConflictError({ tenantId: 't', sessionId: 's', key: 'k' }, 1)],
    ['a message that only mentions a timeout', new Error('statement timeout')],
    ['a thrown string', 'ECONNREFUSED'],
  ])('%s stays what it is', (_, error) => {
    expect(unavailable(error)).toBe(error);
  });

  it('returns a StateUnavailableError as it is', () => {
    const error = new StateUnavailableError('not migrated yet');
    expect(unavailable(error)).toBe(error);
  });

  it('follows causes, but not around in circles', () => {
    const inner = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const outer = new Error('write failed', { cause: inner });
    expect(unavailable(outer)).toBeInstanceOf(StateUnavailableError);
    const loop: Error & { cause?: unknown } = new Error('a');
    loop.cause = new Error('b', { cause: loop });
    expect(unavailable(loop)).toBe(loop);
  });

  describe('on a real sqlite file', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'svc-classify-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('classifies a lock held past the busy timeout, but not a constraint violation', () => {
      const file = join(dir, 'state.sqlite');
      const holder = new Database(file);
      const waiter = new Database(file, { timeout: 0 });
      try {
        holder.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
        holder.exec('BEGIN IMMEDIATE');
        const busy = catching(() => waiter.exec('INSERT INTO t VALUES (1)'));
        expect(unavailable(busy)).toBeInstanceOf(StateUnavailableError);
        holder.exec('INSERT INTO t VALUES (1)');
        const duplicate = catching(() => holder.exec('INSERT INTO t VALUES (1)'));
        expect(unavailable(duplicate)).toBe(duplicate);
        holder.exec('ROLLBACK');
      } finally {
        holder.close();
        waiter.close();
      }
    });
  });
});

function catching(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
