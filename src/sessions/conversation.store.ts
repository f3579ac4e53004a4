import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { ProblemException } from '../platform/http/problem.js';
import type { ChatMessage } from '../providers/chat.types.js';
import { sessionScope } from '../platform/state/state-scopes.js';
import { type EntryWrite, type JsonValue, StateStore } from '../platform/state/state-store.js';
import {
  type SessionRunMark,
  type StoredConversation,
  fitConversation,
  trimNotice,
} from './conversation-fit.js';

const CONVERSATION = 'conversation';

export interface Conversation {
  /** The kept messages, oldest first (without the trim notice). */
  messages: ChatMessage[];
  /** Messages dropped from the front since the session began (0: none). */
  trimmed: number;
  /** The state entry's version; 0 for a session that does not exist yet. */
  version: number;
  updatedAt: number | null;
  /** The run that wrote it last, and how far it had come. */
  run?: SessionRunMark;
}

/** What a run saves after a turn: the session as loaded, then the run's own messages. */
export interface ConversationUpdate {
  /** The conversation the run started from (its messages, trimmed count). */
  from: Pick<Conversation, 'messages' | 'trimmed'>;
  /** The run's own messages so far: its input, then what its turns added. */
  own: readonly ChatMessage[];
}

export interface SavedConversation {
  version: number;
  /** The run's own messages as stored (tool results may be replaced by a note). */
  own: ChatMessage[];
}

/** What the model is given of a session: a notice first when older messages were dropped. */
export function modelHistory(conversation: Pick<Conversation, 'messages' | 'trimmed'>) {
  return conversation.trimmed > 0
    ? [trimNotice(conversation.trimmed), ...conversation.messages]
    : conversation.messages;
}

/**
 * A session's conversation, checkpointed in the state backend with optimistic concurrency and
 * kept within SVC_SESSION_MAX_BYTES (see fitConversation): the oldest whole exchanges make room,
 * and the entry counts what was dropped, so the model (through a notice) and a client (through
 * GET /v1/sessions) can tell.
 */
@Injectable()
export class ConversationStore {
  private readonly maxBytes: number;

  constructor(
    private readonly store: StateStore,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.maxBytes = config.get('runLimits', { infer: true }).sessionMaxBytes;
  }

  async load(tenantId: string, sessionId: string): Promise<Conversation> {
    const entry = await this.store.get<JsonValue>({
      tenantId,
      sessionId: sessionScope(sessionId),
      key: CONVERSATION,
    });
    if (!entry) return { messages: [], trimmed: 0, version: 0, updatedAt: null };
    const value = entry.value as unknown as StoredConversation;
    return {
      messages: value.messages,
      trimmed: value.trimmed ?? 0,
      version: entry.version,
      updatedAt: entry.updatedAt,
      ...(value.run ? { run: value.run } : {}),
    };
  }

  /**
   * 413 `session-too-large` when a run's input cannot be stored in the session even with every
   * earlier message dropped: checked before the run calls anything.
   */
  checkInput(update: ConversationUpdate): void {
    const fit = this.fit(update);
    if (!fit.fits) {
      throw new ProblemException(
        413,
        `the run's input does not fit in its session: ${fit.bytes} bytes, and a session keeps at most ${this.maxBytes} (SVC_SESSION_MAX_BYTES)`,
        'session-too-large',
      );
    }
  }

  /**
   * Writes only over `expectedVersion` (StateConflictError otherwise), marked with the run that
   * wrote it and how far it had come (`mark`, see SessionRunMark). When the run's own
   * messages do not fit even with their tool results left out, the model's answers are too big
   * to keep: 502 `model-output-too-large`, and nothing is written.
   */
  async save(
    tenantId: string,
    sessionId: string,
    update: ConversationUpdate,
    expectedVersion: number,
    mark?: Omit<SessionRunMark, 'own'>,
  ): Promise<SavedConversation> {
    return this.saveAt(tenantId, sessionId, update, expectedVersion, mark).saved;
  }

  /**
   * `save`, with its statement on its way when this returns and the write as a condition for
   * a statement that must take effect only with it (a run's settled record, see EntryWrite);
   * `own` is what `saved` will answer. What `save` refuses, this throws at once.
   */
  saveAt(
    tenantId: string,
    sessionId: string,
    update: ConversationUpdate,
    expectedVersion: number,
    mark?: Omit<SessionRunMark, 'own'>,
  ): { own: ChatMessage[]; write: EntryWrite; saved: Promise<SavedConversation> } {
    const fit = this.fit(update);
    if (!fit.fits) {
      throw new ProblemException(
        502,
        `the model's answers in this run do not fit in its session: ${fit.bytes} bytes with every tool result left out, and a session keeps at most ${this.maxBytes} (SVC_SESSION_MAX_BYTES)`,
        'model-output-too-large',
      );
    }
    const stored: StoredConversation = mark
      ? { ...fit.stored, run: { ...mark, own: fit.ownMessages.length } }
      : fit.stored;
    const { entry, write } = this.store.putAt(
      { tenantId, sessionId: sessionScope(sessionId), key: CONVERSATION },
      stored as unknown as JsonValue,
      expectedVersion,
    );
    const own = fit.ownMessages;
    return { own, write, saved: entry.then(({ version }) => ({ version, own })) };
  }

  private fit({ from, own }: ConversationUpdate) {
    return fitConversation({
      messages: [...from.messages, ...own],
      ownFrom: from.messages.length,
      trimmedBefore: from.trimmed,
      maxBytes: this.maxBytes,
    });
  }
}
