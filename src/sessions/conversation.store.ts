import { Injectable } from '@nestjs/common';
import type { ChatMessage } from '../providers/chat.types.js';
import { sessionScope } from '../state/state-scopes.js';
import { type JsonValue, StateStore } from '../state/state-store.js';

const CONVERSATION = 'conversation';

/** A session keeps at most this many messages; the oldest are dropped (bounded state). */
export const MAX_SESSION_MESSAGES = 500;

export interface Conversation {
  messages: ChatMessage[];
  /** The state entry's version; 0 for a session that does not exist yet. */
  version: number;
  updatedAt: number | null;
}

/** A session's conversation, checkpointed in the state backend with optimistic concurrency. */
@Injectable()
export class ConversationStore {
  constructor(private readonly store: StateStore) {}

  async load(tenantId: string, sessionId: string): Promise<Conversation> {
    const entry = await this.store.get<{ messages: JsonValue[] }>({
      tenantId,
      sessionId: sessionScope(sessionId),
      key: CONVERSATION,
    });
    if (!entry) return { messages: [], version: 0, updatedAt: null };
    return {
      messages: entry.value.messages as unknown as ChatMessage[],
      version: entry.version,
      updatedAt: entry.updatedAt,
    };
  }

  /** Writes only over `expectedVersion` (StateConflictError otherwise); returns the new version. */
  async save(
    tenantId: string,
    sessionId: string,
    messages: ChatMessage[],
    expectedVersion: number,
  ): Promise<number> {
    const kept =
      messages.length > MAX_SESSION_MESSAGES ? messages.slice(-MAX_SESSION_MESSAGES) : messages;
    const entry = await this.store.put(
      { tenantId, sessionId: sessionScope(sessionId), key: CONVERSATION },
      { messages: kept as unknown as JsonValue[] },
      { expectedVersion },
    );
    return entry.version;
  }
}
