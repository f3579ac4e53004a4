import pg from 'pg';
import { QueryFailedError, QueryResult } from 'typeorm';
import {
  type Answer,
  type GroupOutcome,
  GroupQuery,
  type GroupStatement,
} from './postgres-group-query.js';
import type { StatementNames } from './statement-names.js';

interface Pending {
  sql: string;
  params: unknown[];
  /** Its prepared statement's name (StatementNames), when it has one. */
  name: string | undefined;
  resolve: (result: QueryResult) => void;
  reject: (error: unknown) => void;
}

/**
 * The state statements on a PostgreSQL pool, answered as TypeORM's PostgresQueryRunner answers
 * them (`records` the rows, `affected` the row count; failures as QueryFailedError), sent in
 * groups: the statements asked for while the event loop handles one round of I/O go out at the
 * end of it (setImmediate) on one client of the pool, pipelined (the pool's clients are opened
 * with node-postgres's `pipeline` mode, see connection-options) and written to the socket
 * together. A group costs one checkout and one write instead of one of each per statement, and
 * its statements wait one round trip together instead of one each.
 *
 * A group with two writes or more is one transaction (its statements before one Sync,
 * GroupQuery): one commit instead of one per statement, and every answer arrives at once.
 * Measured on the 2-core machine, an echo run on PostgreSQL at 10 in flight went from about 470
 * to 590 runs/s and used 17 % less CPU with BEGIN and COMMIT around the group; three pipelined
 * inserts took 0.32 instead of 0.63 ms. Each caller is answered once the group is committed (a
 * statement answered before would let its caller's next statement, on another client, miss its
 * row). A statement that fails rolls the transaction back; the group's statements then run
 * again each in its own implicit transaction, so one that fails fails alone, as it did on a
 * client of its own. When the commit's outcome is unknown (the connection failed), every
 * statement of the group fails. The statements of a group run in the order they were asked for.
 */
export class PostgresStatements {
  private queue: Pending[] = [];

  /** `names`: the statements' names, for prepared statements; without, every one is unnamed. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly names?: StatementNames,
  ) {}

  run(sql: string, params: unknown[]): Promise<QueryResult> {
    return new Promise((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => void this.sendQueued());
      this.queue.push({ sql, params, name: this.names?.nameOf(sql), resolve, reject });
    });
  }

  private async sendQueued(): Promise<void> {
    const group = this.queue;
    this.queue = [];
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      // Unreachable: the error as the pool gives it, for the caller to classify (503).
      for (const pending of group) pending.reject(error);
      return;
    }
    // A client whose connection fails while it is out is released with the error, so the pool
    // drops it (a checked-out client's error would otherwise have no listener).
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    if (writesIn(group) >= 2) broken = (await inTransaction(client, group, () => broken)) ?? broken;
    else await eachOnItsOwn(client, group);
    client.removeListener('error', onError);
    client.release(broken);
  }
}

/** Statements that only read: a group needs two writes to gain from a transaction. */
const READ_ONLY = /^\s*SELECT\b/i;

function writesIn(group: Pending[]): number {
  let writes = 0;
  for (const pending of group) if (!READ_ONLY.test(pending.sql)) writes += 1;
  return writes;
}

/**
 * Each statement in its own implicit transaction (node-postgres ends every pipelined query with
 * a Sync of its own), all in one write (each query corks and uncorks the socket around its own
 * messages, so without the cork each would be a write of its own), each caller answered as its
 * answer arrives; resolves once all are. Each is a node-postgres Query answered by callback:
 * `client.query`'s promise form copies its config property by property and makes two promises
 * per statement, each seen by the async context's hooks; this makes one per group.
 */
function eachOnItsOwn(client: pg.PoolClient, group: Pending[]): Promise<void> {
  return new Promise((resolve) => {
    let left = group.length;
    const answered = (index: number, answer: Answer) => {
      settle(group[index], answer);
      if (--left === 0) resolve();
    };
    const { stream } = client.connection;
    stream.cork();
    try {
      group.forEach((pending, index) => {
        try {
          client.query(queryOf(pending, index, answered));
        } catch (error) {
          answered(index, { error });
        }
      });
    } finally {
      stream.uncork();
    }
  });
}

/** A statement as node-postgres's Query: prepared under its name when it has one. */
function queryOf(
  { sql, params, name }: GroupStatement,
  index: number,
  answered: (index: number, answer: Answer) => void,
): pg.Query {
  const query = new pg.Query(sql, params, (error, raw) =>
    answered(index, error ? { error } : { raw }),
  );
  // node-postgres reads the name when it sends the query (Query's config would be copied).
  if (name !== undefined) Object.assign(query, { name });
  return query;
}

/** Answers a caller from its statement's answer. */
function settle(pending: Pending, answer: Answer): void {
  if ('raw' in answer) pending.resolve(resultOf(answer.raw));
  else pending.reject(failed(pending, answer.error));
}

/**
 * The group in one transaction (GroupQuery: its statements before one Sync); every caller is
 * answered after the commit. When the server refused a statement, nothing was written: the
 * group runs again statement by statement, so the one that fails fails alone. Answers the error
 * to drop the client with when the group was not answered: whether it was written is unknown,
 * as for a statement whose connection fails, and the connection must not reach the pool.
 */
async function inTransaction(
  client: pg.PoolClient,
  group: Pending[],
  broken: () => Error | undefined,
): Promise<Error | undefined> {
  const outcome = await new Promise<GroupOutcome>((resolve) => {
    try {
      client.query(new GroupQuery(group, resolve));
    } catch (error) {
      resolve({ lost: error });
    }
  });
  if ('committed' in outcome) {
    group.forEach((pending, i) => settle(pending, outcome.committed[i]));
    return undefined;
  }
  const lost = broken();
  if ('refused' in outcome && lost === undefined) {
    await eachOnItsOwn(client, group);
    return undefined;
  }
  const cause = 'lost' in outcome ? outcome.lost : lost;
  for (const pending of group) pending.reject(failed(pending, cause));
  return asError(cause);
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

function resultOf(raw: pg.QueryResult): QueryResult {
  const result = new QueryResult();
  result.records = raw.rows;
  if (raw.rowCount !== null) result.affected = raw.rowCount;
  result.raw =
    raw.command === 'UPDATE' || raw.command === 'DELETE' ? [raw.rows, raw.rowCount] : raw.rows;
  return result;
}

function failed(pending: Pending, error: unknown): QueryFailedError {
  return new QueryFailedError(pending.sql, pending.params, error as Error);
}
