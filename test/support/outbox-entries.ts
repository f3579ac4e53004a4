import type { NewOutboxEntry } from '../../src/messaging/outbox-entry.js';

/**
 * An accepted chat event of tenant `acme` as OutboxStore.accept takes it (what a replica stores
 * before it runs the event), with `fields` over its defaults.
 */
export function outboxEntry(id: string, fields: Partial<NewOutboxEntry> = {}): NewOutboxEntry {
  return {
    tenantId: 'acme',
    id,
    channel: 'chata',
    conversationId: 'C1',
    eventId: id,
    user: 'u',
    text: 'hello',
    sessionId: `sess-${id}`,
    actor: 'root',
    ...fields,
  };
}
