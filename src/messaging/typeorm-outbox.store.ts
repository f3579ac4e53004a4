import { Injectable } from '@nestjs/common';
import type { QueryResult } from 'typeorm';
import { entryWriteCondition, entryWriteValues } from '../platform/state/entry-write.js';
import { type SqlDialect, sql, sqlDialect } from '../platform/state/sql-dialect.js';
import { StateDatabase } from '../platform/state/state-database.service.js';
import { MAX_TENANT_ID, assertIdentifier } from '../platform/state/state-key.limits.js';
import type { EntryWrite } from '../platform/state/state-store.js';
import {
  decodeStoredText,
  encodeStoredText,
  storableDiagnostic,
} from '../platform/state/stored-text.js';
import type { Channel } from './channels.js';
import type {
  AttemptResult,
  NewOutboxEntry,
  OutboxEntry,
  OutboxStats,
  OutboxStatus,
} from './outbox-entry.js';
import { OutboxStore } from './outbox.store.js';

type Num = number | string;

interface Row {
  tenant_id: string;
  id: string;
  channel: Channel;
  conversation_id: string;
  event_id: string;
  sender: string;
  input_text: string;
  session_id: string;
  actor: string;
  status: OutboxStatus;
  reply_text: string | null;
  attempts: Num;
  next_attempt_at: Num;
  created_at: Num;
  updated_at: Num;
  delivered_at: Num | null;
  last_error: string | null;
}

/** The outbox's varchar(256) id columns. */
const MAX_OUTBOX_ID = 256;

/**
 * pg returns bigint columns as strings, sqlite as numbers. The texts are stored encoded where
 * PostgreSQL could not hold them (see stored-text.ts).
 */
function toEntry(row: Row): OutboxEntry {
  return {
    tenantId: row.tenant_id,
    id: row.id,
    channel: row.channel,
    conversationId: row.conversation_id,
    eventId: row.event_id,
    user: row.sender,
    text: decodeStoredText(row.input_text),
    sessionId: row.session_id,
    actor: row.actor,
    status: row.status,
    reply: row.reply_text === null ? null : decodeStoredText(row.reply_text),
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    deliveredAt: row.delivered_at === null ? null : Number(row.delivered_at),
    lastError: row.last_error,
  };
}

/** `last_error` is a varchar(500); clipping may split a surrogate pair, which is then replaced. */
const clip = (error: string) =>
  storableDiagnostic(error.length > 500 ? `${error.slice(0, 499)}…` : error);

// For a finished entry `next_attempt_at` holds the time it finished, so pruning uses the same
// (status, next_attempt_at) index as the worker's query. Parameters are numbered in order of
// appearance, which is the order the methods below pass them in.
function statements(d: SqlDialect) {
  const q = sql(d);
  const setReply = q`UPDATE messaging_outbox
      SET status = 'pending', reply_text = ${'?'}, next_attempt_at = ${'now'} + ${'?'},
        updated_at = ${'now'}
      WHERE tenant_id = ${'?'} AND id = ${'?'} AND status = 'running'`;
  return {
    accept: q`INSERT INTO messaging_outbox (tenant_id, id, channel, conversation_id, event_id,
        sender, input_text, session_id, actor, status, attempts, next_attempt_at, created_at,
        updated_at)
      VALUES (${'?'}, ${'?'}, ${'?'}, ${'?'}, ${'?'}, ${'?'}, ${'?'}, ${'?'}, ${'?'}, 'running', 0,
        ${'now'} + ${'?'}, ${'now'}, ${'now'})
      ON CONFLICT (tenant_id, id) DO NOTHING
      RETURNING id`,
    get: q`SELECT * FROM messaging_outbox WHERE tenant_id = ${'?'} AND id = ${'?'}`,
    setReply: `${setReply} RETURNING *`,
    // With setReply's `onlyIf`: its condition after the four values above.
    setReplyIf: `${setReply} AND ${entryWriteCondition(d, 5)} RETURNING *`,
    // A claim moves the entry's next attempt past the one being made (the due check is the
    // poll's own, so of two replicas that saw the entry due only one claims it).
    claim: q`UPDATE messaging_outbox
      SET next_attempt_at = ${'now'} + ${'?'}, updated_at = ${'now'}
      WHERE tenant_id = ${'?'} AND id = ${'?'} AND status = 'pending' AND attempts = ${'?'}
        AND next_attempt_at <= ${'now'}
      RETURNING *`,
    postpone: q`UPDATE messaging_outbox
      SET next_attempt_at = ${'now'} + ${'?'}, updated_at = ${'now'}
      WHERE tenant_id = ${'?'} AND id = ${'?'} AND status = 'running'`,
    delivered: q`UPDATE messaging_outbox
      SET status = 'delivered', attempts = ${'?'}, delivered_at = ${'now'},
        next_attempt_at = ${'now'}, updated_at = ${'now'}, last_error = NULL
      WHERE tenant_id = ${'?'} AND id = ${'?'} AND status = 'pending' AND attempts = ${'?'}
      RETURNING id`,
    retry: q`UPDATE messaging_outbox
      SET attempts = ${'?'}, next_attempt_at = ${'now'} + ${'?'}, updated_at = ${'now'},
        last_error = ${'?'}
      WHERE tenant_id = ${'?'} AND id = ${'?'} AND status = 'pending' AND attempts = ${'?'}
      RETURNING id`,
    failed: q`UPDATE messaging_outbox
      SET status = 'failed', attempts = ${'?'}, next_attempt_at = ${'now'}, updated_at = ${'now'},
        last_error = ${'?'}
      WHERE tenant_id = ${'?'} AND id = ${'?'} AND status = 'pending' AND attempts = ${'?'}
      RETURNING id`,
    due: q`SELECT * FROM messaging_outbox
      WHERE status IN ('running', 'pending') AND next_attempt_at <= ${'now'}
      ORDER BY next_attempt_at LIMIT ${'?'}`,
    list: q`SELECT * FROM messaging_outbox WHERE tenant_id = ${'?'}
      ORDER BY created_at DESC, id LIMIT ${'?'}`,
    listStatus: q`SELECT * FROM messaging_outbox WHERE tenant_id = ${'?'} AND status = ${'?'}
      ORDER BY created_at DESC, id LIMIT ${'?'}`,
    stats: q`SELECT status, COUNT(*) AS n, ${'now'} - MIN(created_at) AS oldest_age
      FROM messaging_outbox WHERE status IN ('running', 'pending', 'failed') GROUP BY status`,
    prune: q`DELETE FROM messaging_outbox
      WHERE status IN ('delivered', 'failed') AND next_attempt_at < ${'now'} - ${'?'}`,
  };
}

/** The OutboxStore on the state backend's DataSource, in raw SQL for both drivers. */
@Injectable()
export class TypeormOutboxStore extends OutboxStore {
  private readonly dialect: SqlDialect;
  private readonly sql: ReturnType<typeof statements>;

  constructor(private readonly database: StateDatabase) {
    super();
    this.dialect = sqlDialect(database.backend);
    this.sql = statements(this.dialect);
  }

  /** Through StateDatabase, so an unreachable backend is a StateUnavailableError here too. */
  private run(query: string, params: unknown[]): Promise<QueryResult> {
    return this.database.query(query, params);
  }

  private async rows(query: string, params: unknown[]): Promise<Row[]> {
    return (await this.run(query, params)).records as Row[];
  }

  async accept(entry: NewOutboxEntry, recoverAfterMs: number): Promise<boolean> {
    assertIdentifier('tenant_id', entry.tenantId, MAX_TENANT_ID);
    assertIdentifier('conversation_id', entry.conversationId, MAX_OUTBOX_ID);
    assertIdentifier('event_id', entry.eventId, MAX_OUTBOX_ID);
    assertIdentifier('user', entry.user, MAX_OUTBOX_ID);
    const inserted = await this.rows(this.sql.accept, [
      entry.tenantId,
      entry.id,
      entry.channel,
      entry.conversationId,
      entry.eventId,
      entry.user,
      encodeStoredText(entry.text),
      entry.sessionId,
      entry.actor,
      Math.round(recoverAfterMs),
    ]);
    return inserted.length > 0;
  }

  async get(tenantId: string, id: string): Promise<OutboxEntry | null> {
    const [row] = await this.rows(this.sql.get, [tenantId, id]);
    return row ? toEntry(row) : null;
  }

  async setReply(
    tenantId: string,
    id: string,
    reply: string,
    { claimMs = 0, onlyIf }: { claimMs?: number; onlyIf?: EntryWrite } = {},
  ): Promise<OutboxEntry | null> {
    const params = [encodeStoredText(reply), Math.round(claimMs), tenantId, id];
    const [row] = onlyIf
      ? await this.rows(this.sql.setReplyIf, [...params, ...entryWriteValues(this.dialect, onlyIf)])
      : await this.rows(this.sql.setReply, params);
    return row ? toEntry(row) : null;
  }

  async claim(
    tenantId: string,
    id: string,
    attempts: number,
    claimMs: number,
  ): Promise<OutboxEntry | null> {
    const [row] = await this.rows(this.sql.claim, [Math.round(claimMs), tenantId, id, attempts]);
    return row ? toEntry(row) : null;
  }

  async postpone(tenantId: string, id: string, delayMs: number): Promise<void> {
    await this.run(this.sql.postpone, [Math.round(delayMs), tenantId, id]);
  }

  async recordAttempt(
    tenantId: string,
    id: string,
    attempts: number,
    result: AttemptResult,
  ): Promise<boolean> {
    const next = attempts + 1;
    const changed =
      result.kind === 'delivered'
        ? await this.rows(this.sql.delivered, [next, tenantId, id, attempts])
        : result.kind === 'retry'
          ? await this.rows(this.sql.retry, [
              next,
              Math.round(result.delayMs),
              clip(result.error),
              tenantId,
              id,
              attempts,
            ])
          : await this.rows(this.sql.failed, [next, clip(result.error), tenantId, id, attempts]);
    return changed.length > 0;
  }

  async due(limit: number): Promise<OutboxEntry[]> {
    return (await this.rows(this.sql.due, [limit])).map(toEntry);
  }

  async list(
    tenantId: string,
    status: OutboxStatus | undefined,
    limit: number,
  ): Promise<OutboxEntry[]> {
    const rows =
      status === undefined
        ? await this.rows(this.sql.list, [tenantId, limit])
        : await this.rows(this.sql.listStatus, [tenantId, status, limit]);
    return rows.map(toEntry);
  }

  async stats(): Promise<OutboxStats> {
    const rows = (await this.run(this.sql.stats, [])).records as Array<{
      status: OutboxStatus;
      n: Num;
      oldest_age: Num | null;
    }>;
    const count = (status: OutboxStatus) => Number(rows.find((r) => r.status === status)?.n ?? 0);
    const pending = rows.find((r) => r.status === 'pending');
    return {
      running: count('running'),
      pending: count('pending'),
      failed: count('failed'),
      oldestPendingAgeMs:
        pending?.oldest_age == null ? null : Math.max(0, Number(pending.oldest_age)),
    };
  }

  async prune(ageMs: number): Promise<number> {
    return (await this.run(this.sql.prune, [Math.round(ageMs)])).affected ?? 0;
  }
}
