import { createRequire } from 'node:module';
import pg from 'pg';

/** A statement as a group sends it: prepared under its name when it has one. */
export interface GroupStatement {
  sql: string;
  params: unknown[];
  name?: string;
}

/** What a statement was answered: its result, or its failure. */
export type Answer = { raw: pg.QueryResult } | { error: unknown };

/**
 * How a group ended: committed, with each statement's answer; refused by the server (nothing
 * of it written: the statement that failed rolled the transaction back and the rest was
 * skipped); or lost, with no answer (the connection failed, or no answer came in time), so
 * whether it was written is unknown.
 */
export type GroupOutcome = { committed: Answer[] } | { refused: unknown } | { lost: unknown };

/** node-postgres's connection, as far as a group writes to it (its own typings leave this out). */
interface Wire {
  stream: { cork(): void; uncork(): void };
  /** Name → text of the prepared statements the connection has (node-postgres keeps it). */
  parsedStatements: Record<string, string | undefined>;
  parse(message: { text: string; name?: string }): void;
  bind(message: {
    statement?: string;
    values: unknown[];
    valueMapper: (value: unknown) => unknown;
  }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string }): void;
  close(message: { type: 'S'; name: string }): void;
  sync(): void;
}

/** node-postgres's result builder (pg.Result), with what a query does with it. */
interface ResultBuilder extends pg.QueryResult {
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): pg.QueryResultRow;
  addRow(row: pg.QueryResultRow): void;
  addCommandComplete(message: unknown): void;
}

type TypeParsers = ConstructorParameters<typeof pg.Result>[1];

/** The parameter mapping node-postgres's own queries use (dates, buffers, arrays, JSON). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue: (value: unknown) => unknown;
};

/**
 * The statements of a group as one node-postgres query with one Sync at its end: each
 * statement's Parse (only where the connection has not prepared it), Bind, Describe and
 * Execute, then the Sync. PostgreSQL runs what comes before a Sync as one implicit transaction,
 * committed at the Sync; at the first failure everything is rolled back and the rest skipped
 * up to the Sync. So the group is a transaction without BEGIN and COMMIT, and its answers come
 * back in one piece after the Sync: node-postgres ends each pipelined query with a Sync of its
 * own, and the server sends what it has at every one, which made a group's answers arrive in
 * several reads (measured at 10 in flight: 5.6 socket reads per PostgreSQL echo run, 2.4 now).
 *
 * node-postgres sees one query (it routes every answer to it until the ReadyForQuery of the
 * Sync) and knows nothing of the statements this one prepares: their names go into the
 * connection's list here, once PostgreSQL has them. `onSettled` hears the outcome once.
 */
export class GroupQuery extends pg.Query {
  private readonly results: ResultBuilder[] = [];
  /** A row a type parser refused, by statement: that statement's failure (the rest stand). */
  private rowFailures?: Map<number, unknown>;
  private completed = 0;
  /** Index → name of the statements this group prepares (the connection has not yet). */
  private preparing?: Map<number, string>;
  private settled = false;

  constructor(
    private readonly statements: readonly GroupStatement[],
    private readonly onSettled: (outcome: GroupOutcome) => void,
  ) {
    // node-postgres's read timeout answers through `callback` (and wraps it to clear its timer).
    // A text, not a config: Query copies a config property by property.
    super('statement group', undefined, (error: Error | undefined) => {
      if (error) this.settle({ lost: error });
    });
  }

  override submit = (connection: pg.Connection): Error | null => {
    const wire = connection as unknown as Wire;
    wire.stream.cork();
    try {
      this.statements.forEach(({ sql, params, name }, index) => {
        if (name === undefined) wire.parse({ text: sql });
        else if (wire.parsedStatements[name] !== sql && !this.prepares(name)) {
          wire.parse({ text: sql, name });
          (this.preparing ??= new Map()).set(index, name);
        }
        wire.bind({ statement: name, values: params, valueMapper: prepareValue });
        wire.describe({ type: 'P', name: '' });
        wire.execute({ portal: '' });
      });
      wire.sync();
    } finally {
      wire.stream.uncork();
    }
    return null;
  };

  handleRowDescription(message: { fields: unknown[] }): void {
    this.current().addFields(message.fields);
  }

  handleDataRow(message: { fields: unknown[] }): void {
    if (this.rowFailures?.has(this.completed)) return;
    const result = this.current();
    try {
      result.addRow(result.parseRow(message.fields));
    } catch (error) {
      (this.rowFailures ??= new Map()).set(this.completed, error);
    }
  }

  handleCommandComplete(message: unknown): void {
    this.current().addCommandComplete(message);
    this.completed += 1;
  }

  handleEmptyQuery(): void {
    this.current();
    this.completed += 1;
  }

  /** Committed: every statement it prepared is the connection's now. */
  handleReadyForQuery(connection: pg.Connection): void {
    this.answerCallback();
    this.recordPrepared(connection, Infinity);
    this.settle({
      committed: this.statements.map((_, index) =>
        this.rowFailures?.has(index)
          ? { error: this.rowFailures.get(index) }
          : { raw: this.results[index] },
      ),
    });
  }

  /**
   * The server's error refused the statement at `completed` (rolled back, the rest skipped);
   * anything else is a connection that failed, or node-postgres's read timeout.
   */
  handleError(error: unknown, connection: pg.Connection): void {
    this.answerCallback();
    if (error instanceof pg.DatabaseError && error.severity === 'ERROR') {
      this.recordPrepared(connection, this.completed);
      this.settle({ refused: error });
    } else this.settle({ lost: error });
  }

  /**
   * The statements before `failedAt` are prepared, those after it were skipped, and the one
   * that failed may or may not be (its Parse failed, or only its Bind or Execute): that one is
   * closed, which is no error where it does not exist, so whoever sends it next prepares it.
   */
  private recordPrepared(connection: pg.Connection, failedAt: number): void {
    if (!this.preparing) return;
    const wire = connection as unknown as Wire;
    for (const [index, name] of this.preparing) {
      if (index < failedAt) wire.parsedStatements[name] = this.statements[index].sql;
      else if (index === failedAt) wire.close({ type: 'S', name });
    }
  }

  /** The group parses `name` already (a text it sends twice is parsed once). */
  private prepares(name: string): boolean {
    for (const prepared of this.preparing?.values() ?? []) if (prepared === name) return true;
    return false;
  }

  /** node-postgres's read timer stops when its `callback` is called. */
  private answerCallback(): void {
    (this as unknown as { callback: () => void }).callback();
  }

  private current(): ResultBuilder {
    const types = (this as unknown as { _result: { _types: TypeParsers } })._result._types;
    return (this.results[this.completed] ??= new pg.Result(
      undefined as unknown as string,
      types,
    ) as ResultBuilder);
  }

  private settle(outcome: GroupOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.onSettled(outcome);
  }
}
