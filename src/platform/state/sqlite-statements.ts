import type { Database, Statement } from 'better-sqlite3';
import { QueryFailedError, QueryResult } from 'typeorm';

/** Prepared statements kept per connection; the gateway's state statements are far fewer. */
const MAX_CACHED_STATEMENTS = 256;

/**
 * Failures of the database rather than of one statement (locked past the busy timeout, the
 * disk, the file): a group that meets one fails whole. Running its statements again one by one
 * would meet it again, each after its own busy timeout, with the event loop held meanwhile.
 */
const DATABASE_FAILURE =
  /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|CORRUPT|NOTADB|NOMEM|PROTOCOL|PERM|INTERRUPT)(_|$)/;

interface Pending {
  statement: Statement;
  sql: string;
  params: unknown[];
  resolve: (result: QueryResult) => void;
  reject: (error: unknown) => void;
}

/**
 * The state statements of one better-sqlite3 connection, answered as TypeORM's
 * BetterSqlite3QueryRunner answers them (`records` the rows of a statement that returns rows,
 * else `affected` the changes; failures as QueryFailedError), with two differences that matter
 * for every request:
 *
 * - Statements are prepared once per connection (a QueryRunner's cache lives and dies with the
 *   runner, one per statement here, so every statement was compiled again).
 * - Writes are committed in groups: the writes asked for while the event loop handles one round
 *   of I/O run in one transaction at the end of it (setImmediate). In WAL mode every commit
 *   appends each page it changed to the log and takes the log's locks; a group writes a page
 *   once however many statements changed it. Each caller still gets its own result after its
 *   statement is committed. A statement that fails rolls its group back; the group's statements
 *   then run again one by one, so only that one fails (a failure of the database itself, such
 *   as the file staying locked by another process, fails the whole group at once).
 *
 * Order is kept: while writes wait, a read waits behind them, so a statement never sees less
 * than the statements asked for before it.
 */
export class SqliteStatements {
  private readonly cache = new Map<string, Statement>();
  private queue: Pending[] = [];
  /** One transaction over a group, BEGIN IMMEDIATE: the write lock first, as writers should. */
  private readonly inTransaction: (group: Pending[]) => QueryResult[];

  /** `onCommit`: after each transaction that wrote (a group, or a write on its own). */
  constructor(
    private readonly db: Database,
    private readonly onCommit: () => void = () => undefined,
  ) {
    const runAll = db.transaction((group: Pending[]) =>
      group.map((pending) => execute(pending.statement, pending.params)),
    );
    this.inTransaction = (group) => runAll.immediate(group);
  }

  run(sql: string, params: unknown[]): Promise<QueryResult> {
    let statement: Statement;
    const values = params.map(bindable);
    try {
      statement = this.prepared(sql);
    } catch (error) {
      return Promise.reject(failed(sql, values, error));
    }
    return new Promise((resolve, reject) => {
      const pending = { statement, sql, params: values, resolve, reject };
      // A read with no write waiting goes at once; anything else waits for the group.
      if (statement.readonly && this.queue.length === 0) return runAlone(pending, this.onCommit);
      if (this.queue.length === 0) setImmediate(() => this.commitQueued());
      this.queue.push(pending);
    });
  }

  private prepared(sql: string): Statement {
    let statement = this.cache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (this.cache.size >= MAX_CACHED_STATEMENTS) {
        this.cache.delete(this.cache.keys().next().value!);
      }
      this.cache.set(sql, statement);
    }
    return statement;
  }

  private commitQueued(): void {
    const group = this.queue;
    this.queue = [];
    if (group.length === 1) return runAlone(group[0], this.onCommit);
    let results: QueryResult[];
    try {
      results = this.inTransaction(group);
    } catch (error) {
      // Rolled back: nothing of the group is written. A statement's own failure: each runs
      // again on its own, so only that one fails; the database's: every one fails with it.
      if (DATABASE_FAILURE.test(String((error as { code?: unknown }).code))) {
        for (const p of group) p.reject(failed(p.sql, p.params, error));
        return;
      }
      for (const pending of group) runAlone(pending, this.onCommit);
      return;
    }
    this.onCommit();
    group.forEach((pending, i) => pending.resolve(results[i]));
  }
}

/** One statement in its own (implicit) transaction; `onCommit` after a write that succeeded. */
function runAlone(pending: Pending, onCommit: () => void): void {
  let result: QueryResult;
  try {
    result = execute(pending.statement, pending.params);
  } catch (error) {
    pending.reject(failed(pending.sql, pending.params, error));
    return;
  }
  if (!pending.statement.readonly) onCommit();
  pending.resolve(result);
}

/** A statement's failure as TypeORM's runner reports it (the driver's error inside). */
function failed(sql: string, params: unknown[], error: unknown): QueryFailedError {
  return new QueryFailedError(sql, params, error as Error);
}

function execute(statement: Statement, params: unknown[]): QueryResult {
  const result = new QueryResult();
  if (statement.reader) {
    const rows = statement.all(...params);
    result.raw = rows;
    result.records = rows;
  } else {
    const info = statement.run(...params);
    result.affected = info.changes;
    result.raw = info.lastInsertRowid;
  }
  return result;
}

/** better-sqlite3 binds no booleans (TypeORM's runner turns them into 0/1 too). */
function bindable(value: unknown): unknown {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}
