import type { Channel } from './channels.js';

/**
 * `running`: the event was accepted and its agent run is under way; `pending`: the reply waits
 * for delivery; `delivered` and `failed` are final.
 */
export type OutboxStatus = 'running' | 'pending' | 'delivered' | 'failed';
export const OUTBOX_STATUSES: readonly OutboxStatus[] = [
  'running',
  'pending',
  'delivered',
  'failed',
];

/** One accepted inbound event and the delivery of its reply (a row of `messaging_outbox`). */
export interface OutboxEntry {
  tenantId: string;
  /** `msg-<hash>` of channel and event id; also the id of the agent run. */
  id: string;
  channel: Channel;
  conversationId: string;
  eventId: string;
  user: string;
  text: string;
  sessionId: string;
  /** Who sent the event: the API key's id, or `signed:<channel>` for a signed webhook. */
  actor: string;
  status: OutboxStatus;
  reply: string | null;
  /** Delivery attempts made so far. */
  attempts: number;
  /** Epoch ms (database clock): when the worker should next act on an unfinished entry. */
  nextAttemptAt: number;
  createdAt: number;
  updatedAt: number;
  deliveredAt: number | null;
  lastError: string | null;
}

/** The fields of a new entry; the store sets status, times and counters. */
export type NewOutboxEntry = Pick<
  OutboxEntry,
  | 'tenantId'
  | 'id'
  | 'channel'
  | 'conversationId'
  | 'eventId'
  | 'user'
  | 'text'
  | 'sessionId'
  | 'actor'
>;

/** What one delivery attempt changes. */
export type AttemptResult =
  | { kind: 'delivered' }
  | { kind: 'retry'; delayMs: number; error: string }
  | { kind: 'failed'; error: string };

export interface OutboxStats {
  running: number;
  pending: number;
  failed: number;
  /** Age of the oldest entry waiting for delivery, in ms; null when none waits. */
  oldestPendingAgeMs: number | null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** An entry as GET /v1/messaging/outbox shows it. */
export function outboxView(entry: OutboxEntry) {
  return {
    id: entry.id,
    tenant_id: entry.tenantId,
    channel: entry.channel,
    conversation_id: entry.conversationId,
    event_id: entry.eventId,
    user: entry.user,
    run_id: entry.id,
    session_id: entry.sessionId,
    status: entry.status,
    reply: entry.reply,
    attempts: entry.attempts,
    last_error: entry.lastError,
    created_at: iso(entry.createdAt),
    updated_at: iso(entry.updatedAt),
    delivered_at: iso(entry.deliveredAt),
    next_attempt_at:
      entry.status === 'running' || entry.status === 'pending' ? iso(entry.nextAttemptAt) : null,
  };
}
export type OutboxView = ReturnType<typeof outboxView>;
