import { createHash } from 'node:crypto';
import type { Channel } from './channels.js';

function digest(...parts: string[]): string {
  // A separator that cannot occur inside the parts keeps ("a:b", "c") apart from ("a", "b:c").
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);
}

/**
 * The id of an inbound event's outbox row and of its agent run: the same event always maps to
 * the same id, so a repeated event finds the row (and the run record) of the first.
 */
export function messageId(channel: Channel, eventId: string): string {
  return `msg-${digest(channel, eventId)}`;
}

/** The session that holds a chat conversation, so follow-up messages continue it. */
export function conversationSessionId(channel: Channel, conversationId: string): string {
  return `conv-${digest(channel, conversationId)}`;
}

/**
 * The `Idempotency-Key` of an entry's delivery: the same on every attempt and on every replica.
 * The entry id alone would not do: it is unique per tenant only, and every tenant's replies on a
 * channel go to the one webhook the operator configured.
 */
export function deliveryKey(tenantId: string, entryId: string): string {
  return `${tenantId}/${entryId}`;
}
