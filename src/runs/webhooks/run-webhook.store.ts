import { Injectable } from '@nestjs/common';
import { entryWriteCondition, entryWriteValues } from '../../platform/state/entry-write.js';
import { type SqlDialect, sql, sqlDialect } from '../../platform/state/sql-dialect.js';
import { StateDatabase } from '../../platform/state/state-database.service.js';
import type { EntryWrite } from '../../platform/state/state-store.js';
import { storableDiagnostic } from '../../platform/state/stored-text.js';

export type WebhookStatus = 'waiting' | 'pending' | 'delivered' | 'failed';

/** What a webhook POSTs: the gateway's `run.settled`, or an A2A push notification (the task). */
export type WebhookFormat = 'run' | 'a2a';

/** How a run's webhook is to be delivered: its payload's format and the receiver's token. */
export interface WebhookTarget {
  url: string;
  format: WebhookFormat;
  /** Sent back to the receiver (A2A: `X-A2A-Notification-Token`) so it can tell it is ours. */
  token: string | null;
}

export interface RunWebhook extends WebhookTarget {
  tenantId: string;
  runId: string;
  status: WebhookStatus;
  attempts: number;
}

interface Row {
  tenant_id: string;
  run_id: string;
  url: string;
  status: WebhookStatus;
  attempts: number | string;
  format: string | null;
  token: string | null;
}

const toWebhook = (row: Row): RunWebhook => ({
  tenantId: row.tenant_id,
  runId: row.run_id,
  url: row.url,
  status: row.status,
  attempts: Number(row.attempts),
  format: row.format === 'a2a' ? 'a2a' : 'run',
  token: row.token,
});

function statements(d: SqlDialect) {
  const q = sql(d);
  const due = q`UPDATE run_webhooks SET status = 'pending', next_attempt_at = ${'now'}, updated_at = ${'now'}
      WHERE tenant_id = ${'?'} AND run_id = ${'?'} AND status = 'waiting'`;
  return {
    register: q`INSERT INTO run_webhooks
      (tenant_id, run_id, url, format, token, status, attempts, next_attempt_at, created_at, updated_at)
      VALUES (${'?'}, ${'?'}, ${'?'}, ${'?'}, ${'?'}, 'waiting', 0, ${'now'} + ${'?'}, ${'now'}, ${'now'})
      ON CONFLICT (tenant_id, run_id) DO NOTHING`,
    // A target set or changed for a run still running; a delivered or failed one stays as it was.
    configure: q`INSERT INTO run_webhooks
      (tenant_id, run_id, url, format, token, status, attempts, next_attempt_at, created_at, updated_at)
      VALUES (${'?'}, ${'?'}, ${'?'}, ${'?'}, ${'?'}, 'waiting', 0, ${'now'} + ${'?'}, ${'now'}, ${'now'})
      ON CONFLICT (tenant_id, run_id) DO UPDATE SET url = excluded.url, format = excluded.format,
      token = excluded.token, updated_at = excluded.updated_at
      WHERE run_webhooks.status = 'waiting'`,
    remove: q`DELETE FROM run_webhooks WHERE tenant_id = ${'?'} AND run_id = ${'?'}
      AND status IN ('waiting', 'pending')`,
    due,
    // With markDue's `onlyIf`: its condition after the two values above.
    dueIf: `${due} AND ${entryWriteCondition(d, 3)}`,
    list: q`SELECT tenant_id, run_id, url, status, attempts, format, token FROM run_webhooks
      WHERE status IN ('waiting', 'pending') AND next_attempt_at <= ${'now'}
      ORDER BY next_attempt_at LIMIT ${'?'}`,
    postpone: q`UPDATE run_webhooks SET next_attempt_at = ${'now'} + ${'?'}, updated_at = ${'now'}
      WHERE tenant_id = ${'?'} AND run_id = ${'?'} AND status = 'waiting'`,
    attempt: q`UPDATE run_webhooks SET status = ${'?'}, attempts = attempts + 1,
      next_attempt_at = ${'now'} + ${'?'}, updated_at = ${'now'}, last_error = ${'?'},
      delivered_at = CASE WHEN ${'?'} = 'delivered' THEN ${'now'} ELSE NULL END
      WHERE tenant_id = ${'?'} AND run_id = ${'?'} AND status = 'pending' AND attempts = ${'?'}`,
    get: q`SELECT tenant_id, run_id, url, status, attempts, format, token FROM run_webhooks
      WHERE tenant_id = ${'?'} AND run_id = ${'?'}`,
  };
}

/**
 * Run webhooks in the state backend (`run_webhooks`). Every change is one conditional statement
 * on the database clock, so replicas racing on a row never both win: a row is `waiting` until its
 * run settles, `pending` while it is delivered (with retries), then `delivered` or `failed`.
 */
@Injectable()
export class RunWebhookStore {
  private readonly dialect: SqlDialect;
  private readonly sql: ReturnType<typeof statements>;

  constructor(private readonly database: StateDatabase) {
    this.dialect = sqlDialect(database.backend);
    this.sql = statements(this.dialect);
  }

  /** The run's webhook, waiting; looked at again after `checkAfterMs` if nothing marks it due. */
  async register(tenantId: string, runId: string, target: WebhookTarget, checkAfterMs: number) {
    const { url, format, token } = target;
    await this.database.query(this.sql.register, [
      tenantId,
      runId,
      url,
      format,
      token,
      checkAfterMs,
    ]);
  }

  /** Sets (or replaces) the webhook of a run that has not settled; false once it has one done. */
  async configure(
    tenantId: string,
    runId: string,
    target: WebhookTarget,
    checkAfterMs: number,
  ): Promise<boolean> {
    const { url, format, token } = target;
    const result = await this.database.query(this.sql.configure, [
      tenantId,
      runId,
      url,
      format,
      token,
      checkAfterMs,
    ]);
    return (result.affected ?? 0) > 0;
  }

  /** Drops a webhook not yet delivered; true when there was one. */
  async remove(tenantId: string, runId: string): Promise<boolean> {
    const result = await this.database.query(this.sql.remove, [tenantId, runId]);
    return (result.affected ?? 0) > 0;
  }

  /**
   * The run settled: its waiting webhook is due now; with `onlyIf`, only if that write (the
   * settled record) holds, in its transaction. True when a webhook was marked.
   */
  async markDue(tenantId: string, runId: string, onlyIf?: EntryWrite): Promise<boolean> {
    const result = onlyIf
      ? await this.database.query(this.sql.dueIf, [
          tenantId,
          runId,
          ...entryWriteValues(this.dialect, onlyIf),
        ])
      : await this.database.query(this.sql.due, [tenantId, runId]);
    return (result.affected ?? 0) > 0;
  }

  /** Waiting and pending rows that are due, oldest first. */
  async due(limit: number): Promise<RunWebhook[]> {
    const result = await this.database.query(this.sql.list, [limit]);
    return (result.records as Row[]).map(toWebhook);
  }

  async get(tenantId: string, runId: string): Promise<RunWebhook | null> {
    const result = await this.database.query(this.sql.get, [tenantId, runId]);
    const row = result.records[0] as Row | undefined;
    return row ? toWebhook(row) : null;
  }

  /** A waiting row whose run has not settled is looked at again after `delayMs`. */
  async postpone(tenantId: string, runId: string, delayMs: number): Promise<void> {
    await this.database.query(this.sql.postpone, [delayMs, tenantId, runId]);
  }

  /**
   * Records an attempt on a pending row still at `attempts` (another replica's attempt in
   * between makes it a no-op): `pending` again after `retryInMs`, or `delivered`/`failed`.
   */
  async recordAttempt(
    hook: RunWebhook,
    outcome: { status: 'pending' | 'delivered' | 'failed'; retryInMs?: number; error?: string },
  ): Promise<boolean> {
    const error = outcome.error ? storableDiagnostic(outcome.error.slice(0, 500)) : null;
    const result = await this.database.query(this.sql.attempt, [
      outcome.status,
      outcome.retryInMs ?? 0,
      error,
      outcome.status,
      hook.tenantId,
      hook.runId,
      hook.attempts,
    ]);
    return (result.affected ?? 0) > 0;
  }
}
