import type pg from 'pg';
import { QueryFailedError, QueryResult } from 'typeorm';

interface Pending {
  sql: string;
  params: unknown[];
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
 * Each statement keeps its own implicit transaction (node-postgres ends every pipelined query
 * with its own Sync), so one that fails fails alone, as it did on a client of its own; the
 * statements of a group run in the order they were asked for.
 */
export class PostgresStatements {
  private queue: Pending[] = [];

  constructor(private readonly pool: pg.Pool) {}

  run(sql: string, params: unknown[]): Promise<QueryResult> {
    return new Promise((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => void this.sendQueued());
      this.queue.push({ sql, params, resolve, reject });
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
    // One write for the group: each query corks and uncorks the socket around its own messages.
    const { stream } = client.connection;
    stream.cork();
    const answers = group.map((pending) =>
      client.query(pending.sql, pending.params).then(
        (raw) => pending.resolve(resultOf(raw)),
        (error: unknown) => pending.reject(failed(pending, error)),
      ),
    );
    stream.uncork();
    await Promise.all(answers);
    client.removeListener('error', onError);
    client.release(broken);
  }
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
